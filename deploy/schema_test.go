package deploy

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// A small validator for the structural OpenAPI v3 schemas of CustomResourceDefinitions.
// CI has no network, so tools that fetch schemas cannot run; the CRDs of KEDA and the
// Prometheus operator are kept under deploy/crds (copied from the modules' published
// config) and objects are checked against them here: types, required fields, enums,
// and unknown fields (an error unless the schema preserves unknown fields).

type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	Items                *schema            `json:"items"`
	Enum                 []any              `json:"enum"`
	AdditionalProperties *schemaOrBool      `json:"additionalProperties"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string"`
	AnyOf                []*schema          `json:"anyOf"`
	OneOf                []*schema          `json:"oneOf"`
}

// schemaOrBool is additionalProperties: a schema, or true/false.
type schemaOrBool struct {
	allow  bool
	schema *schema
}

func (s *schemaOrBool) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "true":
		s.allow = true
		return nil
	case "false":
		return nil
	}
	s.allow = true
	s.schema = &schema{}
	return yaml.Unmarshal(b, s.schema)
}

type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema *schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// loadCRDSchemas reads every CRD file in dir, keyed by "group/version Kind".
func loadCRDSchemas(dir string) (map[string]*schema, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*schema{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return nil, err
		}
		var c crd
		if err := yaml.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		for _, v := range c.Spec.Versions {
			if v.Schema.OpenAPIV3Schema != nil {
				out[c.Spec.Group+"/"+v.Name+" "+c.Spec.Names.Kind] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return out, nil
}

// validate checks v (decoded JSON) against s, returning every violation.
func (s *schema) validate(path string, v any) []string {
	if s == nil {
		return nil
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		alts := append(append([]*schema{}, s.AnyOf...), s.OneOf...)
		ok := false
		for _, a := range alts {
			// Alternatives in CRDs often constrain only part of a node (e.g. int or
			// string); accept the node when one matches.
			if a.Type == "" || len(a.validate(path, v)) == 0 {
				ok = true
				break
			}
		}
		if !ok {
			return []string{path + ": matches none of the schema's alternatives"}
		}
	}
	if s.IntOrString {
		switch v.(type) {
		case string, float64:
			return nil
		}
		return []string{fmt.Sprintf("%s: want integer or string, got %T", path, v)}
	}
	var errs []string
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", path, v, s.Enum))
		}
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return append(errs, fmt.Sprintf("%s: want object, got %T", path, v))
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: missing required field %q", path, r))
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := path + "." + k
			if p, ok := s.Properties[k]; ok {
				errs = append(errs, p.validate(child, m[k])...)
				continue
			}
			switch {
			case s.AdditionalProperties != nil && s.AdditionalProperties.schema != nil:
				errs = append(errs, s.AdditionalProperties.schema.validate(child, m[k])...)
			case s.AdditionalProperties != nil && s.AdditionalProperties.allow, s.PreserveUnknown:
			case path == "" && (k == "apiVersion" || k == "kind" || k == "metadata"):
			default:
				errs = append(errs, child+": unknown field")
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return append(errs, fmt.Sprintf("%s: want array, got %T", path, v))
		}
		for i, it := range a {
			errs = append(errs, s.Items.validate(fmt.Sprintf("%s[%d]", path, i), it)...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			errs = append(errs, fmt.Sprintf("%s: want string, got %T", path, v))
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			errs = append(errs, fmt.Sprintf("%s: want integer, got %v", path, v))
		}
	case "number":
		if _, ok := v.(float64); !ok {
			errs = append(errs, fmt.Sprintf("%s: want number, got %T", path, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, fmt.Sprintf("%s: want boolean, got %T", path, v))
		}
	}
	return errs
}

// TestValidatorCatchesMistakes shows the offline checks fail on the mistakes they exist
// for, so a green run means something.
func TestValidatorCatchesMistakes(t *testing.T) {
	crds, err := loadCRDSchemas("crds")
	if err != nil {
		t.Fatal(err)
	}
	so := crds["keda.sh/v1alpha1 ScaledObject"]
	if so == nil {
		t.Fatal("no ScaledObject schema")
	}
	cases := []struct {
		name, doc string
		wantErr   string
	}{
		{"good", `{"spec":{"scaleTargetRef":{"name":"w"},"triggers":[{"type":"redis","metadata":{"listName":"q"}}]}}`, ""},
		{"unknown field", `{"spec":{"scaleTargetRef":{"name":"w"},"triggers":[],"maxReplicas":3}}`, ".spec.maxReplicas: unknown field"},
		{"wrong type", `{"spec":{"scaleTargetRef":{"name":"w"},"triggers":[],"minReplicaCount":"zero"}}`, "want integer"},
		{"missing required", `{"spec":{"triggers":[]}}`, `missing required field "scaleTargetRef"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := yaml.Unmarshal([]byte(tc.doc), &v); err != nil {
				t.Fatal(err)
			}
			errs := strings.Join(so.validate("", v), "\n")
			if tc.wantErr == "" && errs != "" || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("validate = %q, want %q", errs, tc.wantErr)
			}
		})
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte("spec:\n  replica: 2\n"), &d); err == nil {
		t.Error("strict decoding accepted a misspelt Deployment field")
	}
}
