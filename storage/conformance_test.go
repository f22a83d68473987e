package storage_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/storage"
)

// Store is what the suite needs from a backend: the methods both backends share.
type Store interface {
	Put(ctx context.Context, obj storage.Object, body io.Reader) (storage.PutResult, error)
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
	Stat(ctx context.Context, key string) (storage.Info, error)
	List(ctx context.Context, prefix string) ([]storage.Info, error)
	Delete(ctx context.Context, key string) error
	URL(key string) string
	Describe() string
}

var (
	_ Store = (*storage.Dir)(nil)
	_ Store = (*storage.S3)(nil)
	_ Store = (*storage.SFTP)(nil)
)

// stored is an object as a user of the backend sees it without package storage.
type stored struct {
	body        []byte
	contentType string
	disposition string
	meta        map[string]string
}

// backend is one backend under test.
type backend struct {
	name string
	// open returns a store; mutate adjusts the S3 settings (ignored by Dir).
	open func(t *testing.T, mutate func(*storage.S3Config)) Store
	// inspect reads key without package storage; ok is false when it is absent.
	inspect func(t *testing.T, key string) (s stored, ok bool)
	// keys lists every visible key under prefix without package storage.
	keys func(t *testing.T, prefix string) []string
	// leftovers counts incomplete uploads (pending multipart uploads, temp files).
	leftovers func(t *testing.T) int
	server    *tests3.Server // nil for Dir
}

func TestConformanceDir(t *testing.T) {
	root := t.TempDir()
	runConformance(t, folderBackend("dir", root, func(t *testing.T) Store {
		d, err := storage.NewDir(root)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}))
}

// folderBackend is a backend whose objects are files under root on this machine (Dir,
// and SFTP to a local server), inspected on disk; the sidecar format is the same.
func folderBackend(name, root string, open func(t *testing.T) Store) backend {
	return backend{
		name: name,
		open: func(t *testing.T, _ func(*storage.S3Config)) Store { return open(t) },
		inspect: func(t *testing.T, key string) (stored, bool) {
			body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key)))
			if errors.Is(err, fs.ErrNotExist) {
				return stored{}, false
			}
			if err != nil {
				t.Fatal(err)
			}
			// The sidecar format is documented in docs/storage.md.
			raw, err := os.ReadFile(filepath.Join(root, ".printworker-meta", filepath.FromSlash(key)+".json"))
			if err != nil {
				t.Fatalf("sidecar of %s: %v", key, err)
			}
			var sc struct {
				ContentType string            `json:"contentType"`
				Filename    string            `json:"filename"`
				Metadata    map[string]string `json:"metadata"`
			}
			if err := json.Unmarshal(raw, &sc); err != nil {
				t.Fatal(err)
			}
			return stored{body: body, contentType: sc.ContentType,
				disposition: storage.ContentDisposition(sc.Filename), meta: sc.Metadata}, true
		},
		keys: func(t *testing.T, prefix string) []string {
			var keys []string
			err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() && strings.HasPrefix(e.Name(), ".") {
					return filepath.SkipDir
				}
				rel, _ := filepath.Rel(root, p)
				if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasPrefix(filepath.ToSlash(rel), prefix) {
					keys = append(keys, filepath.ToSlash(rel))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return keys
		},
		leftovers: func(t *testing.T) int {
			n := 0
			filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
				// A leftover is hidden and outside a RIP's filter by extension.
				if err == nil && strings.HasPrefix(e.Name(), ".tmp-") && strings.HasSuffix(e.Name(), ".part") {
					n++
				}
				return nil
			})
			return n
		},
	}
}

func TestConformanceGofakes3(t *testing.T) {
	runConformance(t, s3Backend(tests3.Start(t)))
}

func TestConformanceVersitygw(t *testing.T) {
	runConformance(t, s3Backend(tests3.StartVersity(t)))
}

func s3Backend(srv *tests3.Server) backend {
	raw := srv.Client()
	ctx := context.Background()
	return backend{
		name:   srv.Kind,
		server: srv,
		open: func(t *testing.T, mutate func(*storage.S3Config)) Store {
			cfg := srv.Config
			if mutate != nil {
				mutate(&cfg)
			}
			s, err := storage.NewS3(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		inspect: func(t *testing.T, key string) (stored, bool) {
			out, err := raw.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)})
			if err != nil {
				if strings.Contains(err.Error(), "NoSuchKey") || strings.Contains(err.Error(), "404") {
					return stored{}, false
				}
				t.Fatalf("raw get %s: %v", key, err)
			}
			defer out.Body.Close()
			body, err := io.ReadAll(out.Body)
			if err != nil {
				t.Fatal(err)
			}
			return stored{body: body, contentType: aws.ToString(out.ContentType),
				disposition: aws.ToString(out.ContentDisposition), meta: out.Metadata}, true
		},
		keys: func(t *testing.T, prefix string) []string {
			var keys []string
			p := s3.NewListObjectsV2Paginator(raw, &s3.ListObjectsV2Input{Bucket: aws.String(srv.Bucket), Prefix: aws.String(prefix)})
			for p.HasMorePages() {
				page, err := p.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range page.Contents {
					keys = append(keys, aws.ToString(o.Key))
				}
			}
			return keys
		},
		leftovers: func(t *testing.T) int {
			out, err := raw.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket)})
			if err != nil && srv.Kind == "gofakes3" && strings.Contains(err.Error(), "NoSuchUpload") {
				// gofakes3 answers an empty listing with NoSuchUpload.
				return 0
			}
			if err != nil {
				t.Fatal(err)
			}
			return len(out.Uploads)
		},
	}
}

func runConformance(t *testing.T, b backend) {
	ctx := context.Background()
	// Each subtest works under its own prefix, so they share one server.
	prefix := func(t *testing.T) string {
		return strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "/"
	}

	t.Run("round trip", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "2024-01-02/1001/123.abc-Front.png"
		body := []byte("\x89PNG\r\n\x1a\n not really a png")
		meta := map[string]string{"store": "shop.example", "order": "1001", "design": "123.abc",
			"view": "front", "dpi": "300", "quantity": "2", "note": "Grüße aus Köln", "looks-encoded": "=?x?"}
		res, err := st.Put(ctx, storage.Object{Key: key, ContentType: "image/png", Filename: "Café Crème.png",
			Size: int64(len(body)), Metadata: meta}, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.Key != key || res.Bytes != int64(len(body)) || res.SHA256 != sha(body) {
			t.Errorf("PutResult = %+v, want %d bytes, sha %s", res, len(body), sha(body))
		}

		rc, info, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("Get body = %q, %v", got, err)
		}
		checkInfo(t, "Get", info, key, int64(len(body)), "image/png", meta)
		sinfo, err := st.Stat(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		checkInfo(t, "Stat", sinfo, key, int64(len(body)), "image/png", meta)

		raw, ok := b.inspect(t, key)
		if !ok {
			t.Fatal("object not visible to a plain client")
		}
		if !bytes.Equal(raw.body, body) || raw.contentType != "image/png" {
			t.Errorf("plain client sees %q as %q", raw.body, raw.contentType)
		}
		want := `attachment; filename="Caf_ Cr_me.png"; filename*=UTF-8''Caf%C3%A9%20Cr%C3%A8me.png`
		if raw.disposition != want {
			t.Errorf("Content-Disposition = %q, want %q", raw.disposition, want)
		}
		if raw.meta["order"] != "1001" || raw.meta["dpi"] != "300" {
			t.Errorf("plain client metadata = %v", raw.meta)
		}
	})

	t.Run("default content type and filename", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "a/file.bin"
		if _, err := st.Put(ctx, storage.Object{Key: key, Size: -1}, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
		raw, _ := b.inspect(t, key)
		if raw.contentType != "application/octet-stream" || raw.disposition != `attachment; filename="file.bin"` {
			t.Errorf("got %q, %q", raw.contentType, raw.disposition)
		}
	})

	t.Run("list", func(t *testing.T) {
		st := b.open(t, nil)
		p := prefix(t)
		keys := []string{p + "s/2024-01-02/1/a.png", p + "s/2024-01-02/1/b.pdf", p + "s/2024-01-02/10/a.png",
			p + "s/2024-01-03/2/manifest.json", p + "t/x.png"}
		for i, k := range keys {
			put(t, st, k, bytes.Repeat([]byte{'x'}, i+1))
		}
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{p, keys},
			{p + "s/2024-01-02/1/", keys[:2]},
			{p + "s/2024-01-02/1", keys[:3]},
			{p + "s/2024-01-03/", keys[3:4]},
			{p + "nothing/", nil},
		} {
			infos, err := st.List(ctx, tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range infos {
				got = append(got, in.Key)
				if want := int64(slices.Index(keys, in.Key) + 1); in.Size != want {
					t.Errorf("%s size %d, want %d", in.Key, in.Size, want)
				}
				if in.ModTime.IsZero() {
					t.Errorf("%s has no ModTime", in.Key)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
			}
			if raw := b.keys(t, tc.prefix); !sameSet(raw, tc.want) {
				t.Errorf("plain listing of %q = %q, want %q", tc.prefix, raw, tc.want)
			}
		}
	})

	t.Run("delete and not found", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "gone.png"
		put(t, st, key, []byte("bye"))
		if err := st.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if err := st.Delete(ctx, key); err != nil {
			t.Errorf("second Delete = %v, want nil (idempotent)", err)
		}
		if _, ok := b.inspect(t, key); ok {
			t.Error("deleted object still visible")
		}
		_, err := st.Stat(ctx, key)
		checkNotFound(t, "Stat", err)
		_, _, err = st.Get(ctx, key)
		checkNotFound(t, "Get", err)
		_, _, err = st.Get(ctx, prefix(t)+"never/was.png")
		checkNotFound(t, "Get never", err)
	})

	t.Run("create if absent", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "manifest.json"
		obj := storage.Object{Key: key, IfAbsent: true}
		if _, err := st.Put(ctx, obj, strings.NewReader("first")); err != nil {
			t.Fatalf("conditional create of a free key: %v", err)
		}
		_, err := st.Put(ctx, obj, strings.NewReader("second"))
		if !errors.Is(err, storage.ErrExists) || retryable(err) {
			t.Errorf("conditional create of a taken key: %v, want a permanent ErrExists", err)
		}
		if raw, _ := b.inspect(t, key); string(raw.body) != "first" {
			t.Errorf("after a refused create: %q, want the first object kept", raw.body)
		}
		if keys := b.keys(t, prefix(t)); len(keys) != 1 {
			t.Errorf("keys after a refused create: %q (no temporary file may stay)", keys)
		}
	})

	t.Run("overwrite", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "same.png"
		r1 := put(t, st, key, []byte("same bytes"))
		r2 := put(t, st, key, []byte("same bytes"))
		if r1 != r2 {
			t.Errorf("re-put gave %+v then %+v", r1, r2)
		}
		if keys := b.keys(t, prefix(t)); len(keys) != 1 {
			t.Errorf("keys after re-put: %q", keys)
		}
		put(t, st, key, []byte("new bytes"))
		if raw, _ := b.inspect(t, key); string(raw.body) != "new bytes" {
			t.Errorf("after overwrite: %q", raw.body)
		}
	})

	t.Run("large streamed multipart", func(t *testing.T) {
		const size = 40 << 20
		const part = 5 << 20
		const conc = 2
		rec := &recorder{}
		st := b.open(t, func(c *storage.S3Config) {
			c.PartSize, c.Concurrency = part, conc
			c.HTTPClient = &http.Client{Transport: rec}
		})
		key := prefix(t) + "big.pdf"
		gen := newGenerator(size, 1)
		var maxAhead atomic.Int64
		if b.server != nil && b.server.Kind == "gofakes3" {
			gen.onRead = func(consumed int64) {
				ahead := consumed - b.server.BytesReceived()
				for {
					m := maxAhead.Load()
					if ahead <= m || maxAhead.CompareAndSwap(m, ahead) {
						break
					}
				}
			}
		}
		res, err := st.Put(ctx, storage.Object{Key: key, ContentType: "application/pdf", Size: size}, gen)
		if err != nil {
			t.Fatal(err)
		}
		want := newGenerator(size, 1).sum(t)
		if res.Bytes != size || res.SHA256 != want {
			t.Fatalf("PutResult %+v, want %d bytes sha %s", res, size, want)
		}
		raw, ok := b.inspect(t, key)
		if !ok || int64(len(raw.body)) != size || sha(raw.body) != want {
			t.Fatalf("stored object differs: %d bytes", len(raw.body))
		}
		if b.server != nil {
			if n := rec.count(func(r recorded) bool { return r.query.Has("partNumber") }); n != (size+part-1)/part {
				t.Errorf("%d UploadPart requests, want %d", n, (size+part-1)/part)
			}
		}
		if m := maxAhead.Load(); b.server != nil && b.server.Kind == "gofakes3" {
			// The client holds at most the parts in flight plus the one it fills; the
			// server counts a part only once it has read it whole, so one more part can
			// sit between the two counts. The bound stays far below the body: the
			// upload streams, it never buffers the whole file.
			limit := int64(part*(conc+2) + 1<<20)
			t.Logf("client read at most %d MiB ahead of the server", m>>20)
			if m <= 0 || m > limit {
				t.Errorf("read %d bytes ahead of the server, limit %d", m, limit)
			}
		}
	})

	t.Run("aborted body leaves nothing", func(t *testing.T) {
		st := b.open(t, func(c *storage.S3Config) { c.PartSize = 5 << 20 })
		for _, tc := range []struct {
			name string
			size int64
		}{{"single part", 1000}, {"multipart", 12 << 20}} {
			t.Run(tc.name, func(t *testing.T) {
				key := prefix(t) + "broken.png"
				boom := errors.New("network went away")
				body := io.MultiReader(io.LimitReader(newGenerator(tc.size, 2), tc.size-1), errReader{boom})
				_, err := st.Put(ctx, storage.Object{Key: key}, body)
				if !errors.Is(err, boom) {
					t.Fatalf("Put = %v, want the body's error", err)
				}
				if !retryable(err) {
					t.Errorf("a failed body read should be retryable: %v", err)
				}
				if _, ok := b.inspect(t, key); ok {
					t.Error("partial object visible under the final key")
				}
				if keys := b.keys(t, prefix(t)); len(keys) != 0 {
					t.Errorf("left keys %q", keys)
				}
				if n := b.leftovers(t); n != 0 {
					t.Errorf("%d incomplete uploads left", n)
				}
			})
		}
		t.Run("keeps the previous object", func(t *testing.T) {
			key := prefix(t) + "kept.png"
			put(t, st, key, []byte("version 1"))
			_, err := st.Put(ctx, storage.Object{Key: key}, io.MultiReader(strings.NewReader("vers"), errReader{io.ErrUnexpectedEOF}))
			if err == nil {
				t.Fatal("Put succeeded")
			}
			if raw, _ := b.inspect(t, key); string(raw.body) != "version 1" {
				t.Errorf("object now %q", raw.body)
			}
		})
	})

	t.Run("declared size and checksum are enforced", func(t *testing.T) {
		st := b.open(t, nil)
		body := []byte("twelve bytes")
		for _, tc := range []struct {
			name  string
			obj   storage.Object
			retry bool
		}{
			{"body shorter than size", storage.Object{Size: 20}, true},
			{"body longer than size", storage.Object{Size: 5}, false},
			{"sha256 mismatch", storage.Object{Size: -1, Metadata: map[string]string{"sha256": sha([]byte("other"))}}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.obj.Key = prefix(t) + "x.png"
				_, err := st.Put(ctx, tc.obj, bytes.NewReader(body))
				if err == nil {
					t.Fatal("Put succeeded")
				}
				if retryable(err) != tc.retry {
					t.Errorf("Retryable = %v, want %v: %v", !tc.retry, tc.retry, err)
				}
				if _, ok := b.inspect(t, tc.obj.Key); ok {
					t.Error("object stored despite the mismatch")
				}
			})
		}
		key := prefix(t) + "ok.png"
		if _, err := st.Put(ctx, storage.Object{Key: key, Size: int64(len(body)),
			Metadata: map[string]string{"sha256": strings.ToUpper(sha(body))}}, bytes.NewReader(body)); err != nil {
			t.Errorf("matching size and sha256: %v", err)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "cancelled.png"
		cctx, cancel := context.WithCancel(ctx)
		body := io.MultiReader(strings.NewReader("start"), readerFunc(func([]byte) (int, error) {
			cancel()
			return 0, cctx.Err()
		}))
		_, err := st.Put(cctx, storage.Object{Key: key}, body)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put = %v, want context.Canceled", err)
		}
		if _, ok := b.inspect(t, key); ok {
			t.Error("object stored")
		}
	})

	t.Run("invalid keys", func(t *testing.T) {
		st := b.open(t, nil)
		for _, key := range []string{"", "/abs/x.png", "a/../b.png", "../x.png", "a//b.png", "a/", ".hidden/x.png",
			"a/.x.png", `a\b.png`, "a/\x00.png", "a/\xff.png", strings.Repeat("k", 1025)} {
			_, err := st.Put(ctx, storage.Object{Key: key}, strings.NewReader("x"))
			if !errors.Is(err, storage.ErrInvalidKey) || retryable(err) {
				t.Errorf("Put(%q) = %v, want a permanent ErrInvalidKey", key, err)
			}
			if _, err := st.Stat(ctx, key); !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("Stat(%q) = %v", key, err)
			}
		}
		_, err := st.Put(ctx, storage.Object{Key: prefix(t) + "x.png", Metadata: map[string]string{"Bad Name": "v"}}, strings.NewReader("x"))
		if !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("bad metadata name: %v", err)
		}
	})

	t.Run("url", func(t *testing.T) {
		st := b.open(t, nil)
		key := prefix(t) + "2024-01-02/Café 1.png"
		put(t, st, key, []byte("look at me"))
		u, err := url.Parse(st.URL(key))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(u.Path, "/2024-01-02/Café 1.png") {
			t.Errorf("URL %s does not end with the key", st.URL(key))
		}
		if st.Describe() == "" {
			t.Error("empty Describe")
		}
		switch {
		case b.server == nil:
			got, err := os.ReadFile(u.Path)
			if err != nil || string(got) != "look at me" {
				t.Errorf("file URL %s: %q, %v", u, got, err)
			}
		case b.server.Kind == "gofakes3":
			// gofakes3 serves anonymous reads, as a public bucket does.
			resp, err := http.Get(u.String())
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != "look at me" {
				t.Errorf("GET %s = %d %q", u, resp.StatusCode, got)
			}
		}
	})

	if b.server == nil {
		return
	}
	t.Run("leftover probe sees pending uploads", func(t *testing.T) {
		// Without this, "aborted body leaves nothing" could pass on a probe that is blind.
		raw := b.server.Client()
		key := prefix(t) + "pending.bin"
		up, err := raw.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(b.server.Bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		if n := b.leftovers(t); n != 1 {
			t.Errorf("probe sees %d pending uploads, want 1", n)
		}
		if _, err := raw.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(b.server.Bucket),
			Key: aws.String(key), UploadId: up.UploadId}); err != nil {
			t.Fatal(err)
		}
		if n := b.leftovers(t); n != 0 {
			t.Errorf("probe sees %d pending uploads after abort", n)
		}
	})
	t.Run("checksum setting", func(t *testing.T) {
		for _, mode := range []string{storage.ChecksumWhenRequired, storage.ChecksumWhenSupported} {
			t.Run(mode, func(t *testing.T) {
				rec := &recorder{}
				st := b.open(t, func(c *storage.S3Config) {
					c.Checksum = mode
					c.PartSize = 5 << 20
					c.HTTPClient = &http.Client{Transport: rec}
				})
				for _, size := range []int64{1000, 11 << 20} {
					key := fmt.Sprintf("%s%d.bin", prefix(t), size)
					res, err := st.Put(ctx, storage.Object{Key: key, Size: size}, newGenerator(size, 3))
					if err != nil {
						t.Fatalf("%d bytes: %v", size, err)
					}
					raw, ok := b.inspect(t, key)
					if !ok || sha(raw.body) != res.SHA256 {
						t.Errorf("%d bytes: stored object differs from what was sent (%d bytes)", size, len(raw.body))
					}
				}
				sent := rec.count(func(r recorded) bool { return r.method == http.MethodPut && r.checksum })
				puts := rec.count(func(r recorded) bool { return r.method == http.MethodPut })
				if mode == storage.ChecksumWhenRequired && sent != 0 {
					t.Errorf("%d of %d uploads carried checksums with %s", sent, puts, mode)
				}
				if mode == storage.ChecksumWhenSupported && sent != puts {
					t.Errorf("%d of %d uploads carried checksums with %s", sent, puts, mode)
				}
			})
		}
	})
}

func checkInfo(t *testing.T, op string, in storage.Info, key string, size int64, ct string, meta map[string]string) {
	t.Helper()
	if in.Key != key || in.Size != size || in.ContentType != ct || in.ModTime.IsZero() {
		t.Errorf("%s info = %+v", op, in)
	}
	for k, v := range meta {
		if in.Metadata[k] != v {
			t.Errorf("%s metadata %s = %q, want %q", op, k, in.Metadata[k], v)
		}
	}
	if len(in.Metadata) != len(meta) {
		t.Errorf("%s metadata = %v, want %v", op, in.Metadata, meta)
	}
}

func checkNotFound(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, storage.ErrNotFound) || retryable(err) {
		t.Errorf("%s = %v, want a permanent ErrNotFound", op, err)
	}
}

func retryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

func put(t *testing.T, st Store, key string, body []byte) storage.PutResult {
	t.Helper()
	res, err := st.Put(context.Background(), storage.Object{Key: key, Size: int64(len(body))}, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
	return res
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// generator streams size pseudo-random bytes without holding them.
type generator struct {
	rng    *rand.ChaCha8
	left   int64
	read   int64
	onRead func(consumed int64)
}

func newGenerator(size int64, seed byte) *generator {
	var s [32]byte
	s[0] = seed
	return &generator{rng: rand.NewChaCha8(s), left: size}
}

func (g *generator) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, _ := g.rng.Read(p)
	g.left -= int64(n)
	g.read += int64(n)
	if g.onRead != nil {
		g.onRead(g.read)
	}
	return n, nil
}

func (g *generator) sum(t *testing.T) string {
	h := sha256.New()
	if _, err := io.Copy(h, g); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// recorder is an HTTP transport that notes each request a store sends.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method   string
	query    url.Values
	checksum bool // any flexible-checksum header or trailer
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recorded{method: req.Method, query: req.URL.Query()}
	for name := range req.Header {
		n := strings.ToLower(name)
		if strings.HasPrefix(n, "x-amz-checksum-") || n == "x-amz-sdk-checksum-algorithm" ||
			(n == "x-amz-trailer" && strings.Contains(strings.ToLower(req.Header.Get(name)), "checksum")) {
			rec.checksum = true
		}
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) count(match func(recorded) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.reqs {
		if match(q) {
			n++
		}
	}
	return n
}
