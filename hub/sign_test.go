package hub_test

import (
	"strconv"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

func TestSignTestVector(t *testing.T) {
	// hub-gaps.md: secret my-api-secret, verification string 123abc789.
	const want = "ea35a76be62a6d6070dd3105ccda8dd9905b8c79542e591f4fa091120d80ddf3"
	// Parts are concatenated without separator, however they are split.
	for _, parts := range [][]string{{"123abc789"}, hub.OrderParts("123", "abc789"), {"123", "abc", "789"}} {
		if got := hub.Sign("my-api-secret", hub.EncodingHex, parts...); got != want {
			t.Errorf("Sign(%q) = %s, want %s", parts, got, want)
		}
	}
	if got := hub.Sign("my-api-secret", "", "123abc789"); got != want {
		t.Errorf("empty encoding must mean hex, got %s", got)
	}
	// The same 32 bytes in standard base64 (computed with Python hmac + base64).
	const b64 = "6jWna+YqbWBw3TEFzNqN2ZBbjHlULlkfT6CREg2A3fM="
	if got := hub.Sign("my-api-secret", hub.EncodingBase64, "123abc789"); got != b64 {
		t.Errorf("base64 = %s, want %s", got, b64)
	}
	for _, tc := range []struct {
		enc  hub.SignatureEncoding
		got  string
		want bool
	}{
		{hub.EncodingHex, want, true},
		{hub.EncodingHex, "EA35A76BE62A6D6070DD3105CCDA8DD9905B8C79542E591F4FA091120D80DDF3", true},
		{hub.EncodingHex, want[:63] + "4", false},
		{hub.EncodingHex, "", false},
		{hub.EncodingBase64, b64, true},
		{hub.EncodingBase64, "6JWna+YqbWBw3TEFzNqN2ZBbjHlULlkfT6CREg2A3fM=", false},
	} {
		if ok := hub.VerifySignature("my-api-secret", tc.enc, tc.got, "123", "abc789"); ok != tc.want {
			t.Errorf("Verify(%s, %q) = %v, want %v", tc.enc, tc.got, ok, tc.want)
		}
	}
}

func TestVerificationStrings(t *testing.T) {
	ref := model.DesignRef{ID: 1042, Token: "tok-1"}
	cases := []struct {
		name  string
		parts []string
		want  []string
	}{
		{"order", hub.OrderParts("s1", "1001"), []string{"s1", "1001"}},
		{"list/create template", hub.StoreParts("s1"), []string{"s1"}},
		{"get/update/delete template", hub.TemplateParts("s1", "mug"), []string{"s1", "mug"}},
		{"design, export", hub.DesignParts("s1", ref), []string{"s1", "1042", "tok-1"}},
		{"export view", hub.ViewParts("s1", ref, "front"), []string{"s1", "1042", "tok-1", "front"}},
	}
	for _, tc := range cases {
		if len(tc.parts) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, tc.parts, tc.want)
			continue
		}
		for i := range tc.want {
			if tc.parts[i] != tc.want[i] {
				t.Errorf("%s: %q, want %q", tc.name, tc.parts, tc.want)
			}
		}
	}
}

func TestParseSignatureEncoding(t *testing.T) {
	for in, want := range map[string]hub.SignatureEncoding{"": hub.EncodingHex, "hex": hub.EncodingHex, " HEX ": hub.EncodingHex, "base64": hub.EncodingBase64} {
		if got, err := hub.ParseSignatureEncoding(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := hub.ParseSignatureEncoding("base32"); err == nil {
		t.Error("base32 accepted")
	}
}

func TestPathsAndHeadersPerVersion(t *testing.T) {
	ref := model.DesignRef{ID: 7, Token: "ab-c"}
	cases := []struct {
		v                                   hub.Version
		order, orderID, tpl, tplID          string
		design, export, exportView          string
		storeHdr, keyHdr, sigHdr, domainHdr string
	}{
		{hub.V1, "/v1/order", "/v1/order/1%2F2", "/v1/templates", "/v1/templates/p%201",
			"/v1/configuration/7/ab-c", "/v1/configuration/7/ab-c/export", "/v1/configuration/7/ab-c/view/front/export",
			"X-Service-Shop", "X-Service-Api-Key", "X-Service-Api-Signature", "X-Service-Domain"},
		{hub.V2022, "/2022-08/orders", "/2022-08/orders/1%2F2", "/2022-08/templates", "/2022-08/templates/p%201",
			"/2022-08/customizations/7/ab-c", "/2022-08/export/7/ab-c", "/2022-08/export/7/ab-c/view/front",
			"X-Service-Shop", "X-Service-Api-Key", "X-Service-Api-Signature", "X-Service-Domain"},
		{hub.V2023, "/2023-10/orders", "/2023-10/orders/1%2F2", "/2023-10/templates", "/2023-10/templates/p%201",
			"/2023-10/designs/7/ab-c", "/2023-10/export/7/ab-c", "/2023-10/export/7/ab-c/view/front",
			"X-Service-Store", "X-Service-Api-Key", "X-Service-Api-Signature", "X-Service-Domain"},
	}
	for _, tc := range cases {
		t.Run(string(tc.v), func(t *testing.T) {
			check := func(what, got, want string) {
				if got != want {
					t.Errorf("%s = %q, want %q", what, got, want)
				}
			}
			check("order path", hub.OrderPath(tc.v, ""), tc.order)
			check("order id path", hub.OrderPath(tc.v, "1/2"), tc.orderID)
			check("template path", hub.TemplatePath(tc.v, ""), tc.tpl)
			check("template id path", hub.TemplatePath(tc.v, "p 1"), tc.tplID)
			check("design path", hub.DesignPath(tc.v, ref), tc.design)
			check("export path", hub.ExportPath(tc.v, ref, ""), tc.export)
			check("export view path", hub.ExportPath(tc.v, ref, "front"), tc.exportView)
			h := hub.HeadersFor(tc.v, "")
			check("store header", h.Store, tc.storeHdr)
			check("key header", h.APIKey, tc.keyHdr)
			check("signature header", h.Signature, tc.sigHdr)
			check("domain header", h.Domain, tc.domainHdr)
		})
	}
	if h := hub.HeadersFor(hub.V2023, "Acme"); h.Store != "X-Acme-Store" || h.Signature != "X-Acme-Api-Signature" {
		t.Errorf("vendor word: %+v", h)
	}
	for _, s := range []string{"v1", "2022-08", "2023-10"} {
		if v, err := hub.ParseVersion(s); err != nil || string(v) != s {
			t.Errorf("ParseVersion(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"", "v2", "2023-11", "2022-08 "} {
		if _, err := hub.ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q) accepted", s)
		}
	}
}

func TestParseDesignRef(t *testing.T) {
	cases := []struct {
		in    string
		id    int64
		token string
		ok    bool
	}{
		{"1042.3fa85f64-5717-4562-b3fc-2c963f66afa6", 1042, "3fa85f64-5717-4562-b3fc-2c963f66afa6", true},
		{" 7.abc_DEF-9 ", 7, "abc_DEF-9", true},
		{"007.x", 7, "x", true},
		{"", 0, "", false},
		{"1042", 0, "", false},
		{".tok", 0, "", false},
		{"1042.", 0, "", false},
		{"0.tok", 0, "", false},
		{"-5.tok", 0, "", false},
		{"+5.tok", 0, "", false},
		{"1e3.tok", 0, "", false},
		{"99999999999999999999.tok", 0, "", false},
		{"12.tok.more", 0, "", false},
		{"12.tok/../x", 0, "", false},
		{"12.tok en", 0, "", false},
		{"12.tök", 0, "", false},
		{"12." + string(make([]byte, 129)), 0, "", false},
	}
	for _, tc := range cases {
		r, err := model.ParseDesignRef(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseDesignRef(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && (r.ID != tc.id || r.Token != tc.token) {
			t.Errorf("ParseDesignRef(%q) = %+v", tc.in, r)
		}
		if tc.ok && r.String() != strconv.FormatInt(tc.id, 10)+"."+tc.token {
			t.Errorf("String() = %q", r.String())
		}
	}
}
