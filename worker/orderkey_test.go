package worker_test

import (
	"context"
	"encoding/json"
	"io"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// readWriter is what these tests use of either backend.
type readWriter interface {
	worker.Storage
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

// backends runs a test on the S3 server over HTTP (internal/tests3) and on a hot folder.
func backends(t *testing.T, run func(t *testing.T, e *env, st readWriter), opts ...envOption) {
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, opts...)
		run(t, e, e.store)
	})
	t.Run("hot folder", func(t *testing.T) {
		t.Parallel()
		dir, err := storage.NewDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		run(t, newEnv(t, append(opts, func(_ *worker.Config, d *worker.Deps) { d.Storage = dir })...), dir)
	})
}

func waitManifest(t *testing.T, e *env, st readWriter, key string) worker.Manifest {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		rc, _, err := st.Get(context.Background(), key)
		if err == nil {
			var m worker.Manifest
			err = json.NewDecoder(rc).Decode(&m)
			rc.Close()
			if err == nil {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("manifest %s not written: %v; %s", key, err, e.queueReport())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Issue 10 item 3: order ids that differ only in characters the key cleaning removes
// ("A/1" and "A1") end in two folders with two manifests, each listing its own files.
// Before, both wrote .../A1/manifest.json: one order's manifest was overwritten.
func TestOrdersThatCleanAlikeGetFoldersOfTheirOwn(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		e.start()
		ctx := context.Background()
		ids := []string{"A/1", "A1"}
		for _, id := range ids {
			if _, err := e.enq.ExportOrder(ctx, store, e.order(id, 1003)); err != nil {
				t.Fatal(err)
			}
		}
		folders := map[string]bool{}
		for _, id := range ids {
			folder := store + "/2024-06-01/" + storage.OrderFolderValue(id, domain)
			folders[folder] = true
			m := waitManifest(t, e, st, folder+"/"+storage.ManifestName)
			if m.OrderID != id {
				t.Errorf("%s: manifest of order %q, want %q", folder, m.OrderID, id)
			}
			if len(m.Files) == 0 {
				t.Errorf("order %s: manifest lists no file", id)
			}
			for _, f := range m.Files {
				if path.Dir(f.Key) != folder {
					t.Errorf("order %s: file %s outside its folder %s", id, f.Key, folder)
				}
				if b := readAll(t, st, f.Key); int64(len(b)) != f.Bytes {
					t.Errorf("%s: %d bytes stored, manifest says %d", f.Key, len(b), f.Bytes)
				}
			}
		}
		if len(folders) != 2 {
			t.Fatalf("folders %v: want two", folders)
		}
		if !folders[store+"/2024-06-01/A1@"+domain] {
			t.Errorf("folders %v: a clean id must keep its folder name (A1@"+domain+")", folders)
		}
	})
}

// A manifest is never written over another order's: the export fails permanently
// with a reason naming both orders before any file is written (issue 32 item 2: the
// files went in first and only the completion refused), and the manifest in place is
// kept byte for byte, alone in its folder.
func TestManifestOfAnotherOrderIsNotOverwritten(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, e *env, st readWriter) {
		ctx := context.Background()
		key := orderDir("B-7") + "/" + storage.ManifestName
		theirs := `{"version":1,"store":"` + store + `","domain":"` + domain + `","orderId":"B:7"}` + "\n"
		if _, err := st.Put(ctx, storage.Object{Key: key}, strings.NewReader(theirs)); err != nil {
			t.Fatal(err)
		}
		e.start()
		if _, err := e.enq.ExportOrder(ctx, store, e.order("B-7", 1003)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(waitBound)
		for {
			archived, _ := e.insp.ListArchivedTasks(jobs.QueueExports)
			if len(archived) > 0 {
				if !strings.Contains(archived[0].LastErr, `manifest of order "B:7"`) || !strings.Contains(archived[0].LastErr, "not overwritten") {
					t.Errorf("archived for %q, want the manifest's owner named", archived[0].LastErr)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the completion was not refused; %s", e.queueReport())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := string(readAll(t, st, key)); got != theirs {
			t.Errorf("the other order's manifest became %q", got)
		}
		if objs := listKeys(t, st, path.Dir(key)+"/"); len(objs) != 1 {
			t.Errorf("folder holds %q, want only the other order's manifest", objs)
		}
	})
}

// listKeys lists the keys under prefix of a storage that can list.
func listKeys(t *testing.T, st readWriter, prefix string) []string {
	t.Helper()
	l, ok := st.(interface {
		List(ctx context.Context, prefix string) ([]storage.Info, error)
	})
	if !ok {
		t.Fatal("storage cannot list")
	}
	infos, err := l.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, i := range infos {
		keys = append(keys, i.Key)
	}
	return keys
}

func readAll(t *testing.T, st readWriter, key string) []byte {
	t.Helper()
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
