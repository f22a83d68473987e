package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDemoMachineFolders runs the demo with the sample routing rules
// (testdata/demo-routing.json) and lists what a RIP watching each machine folder sees:
// print files (and the ready markers the sublimation rule asks for) at the top level,
// nothing else (no thumbnail, ticket, page, manifest, order folder or temporary
// name), and no two equal names across the demo's orders, which share designs.
func TestDemoMachineFolders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "printworker-demo")
	stdout, stderr, err := runCLI(t, nil, "demo", "--out", out, "--timeout", "2m",
		"--routing-rules", filepath.Join("testdata", "demo-routing.json"))
	if err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	manifests := checkDemoOutput(t, out, stdout)
	want := map[string][]string{ // machine folder -> print files
		// The T-shirt front is a dtf-white PNG: its white plate goes with it.
		// One name per file: the order folder's, which names the order.
		"dtf": {"6100000000001-1001-Team-Shirt-Back.pdf", "6100000000001-1001-Team-Shirt-Front-white.png",
			"6100000000001-1001-Team-Shirt-Front.png", "6100000000001-1001-Team-Shirt-Sleeve.pdf"},
		"sublimation": {"6100000000001-1002-Coffee-Mug-Left.png", "6100000000001-1002-Coffee-Mug-Right.png",
			"6100000000003-1002-Coffee-Mug-Left.png", "6100000000003-1002-Coffee-Mug-Right.png"},
	}
	seen := map[string]string{} // lower-case name -> folder
	for folder, files := range want {
		dir := filepath.Join(out, "route", "hot", folder)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var prints []string
		for _, e := range entries {
			name := e.Name()
			switch {
			case e.IsDir():
				t.Errorf("%s: folder %s in a flat machine folder", folder, name)
			case strings.HasPrefix(name, "."):
				t.Errorf("%s: hidden file %s left in the machine folder", folder, name)
			case folder == "sublimation" && strings.HasSuffix(name, ".ready"):
				if st, _ := e.Info(); st.Size() != 0 || !slices.ContainsFunc(entries, func(o os.DirEntry) bool { return o.Name()+".ready" == name }) {
					t.Errorf("%s: marker %s without its file", folder, name)
				}
			case strings.HasSuffix(name, ".pdf") || strings.HasSuffix(name, ".png"):
				prints = append(prints, name)
				if other, ok := seen[strings.ToLower(name)]; ok {
					t.Errorf("%s in %s and %s: names collide", name, folder, other)
				}
				seen[strings.ToLower(name)] = folder
			default:
				t.Errorf("%s: %s is no print file", folder, name)
			}
		}
		if !slices.Equal(prints, files) {
			t.Errorf("%s holds %q, want %q", folder, prints, files)
		}
	}
	// Each copy is the order folder's file, byte for byte, and the manifest names it.
	copies := 0
	for _, m := range manifests {
		for _, f := range m.Files {
			if f.Machine == nil {
				continue
			}
			copies++
			if path.Base(f.Machine.Key) != f.Filename {
				t.Errorf("%s is %s in its machine folder: two names for one file", f.Filename, f.Machine.Key)
			}
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.Machine.Key)))
			sum := sha256.Sum256(data)
			if err != nil || hex.EncodeToString(sum[:]) != f.SHA256 {
				t.Errorf("machine copy %s of %s: %v, sha256 %x, want %s", f.Machine.Key, f.Key, err, sum, f.SHA256)
			}
			// A sidecar's copy is the order folder's sidecar.
			if len(f.Machine.Sidecars) != len(f.Sidecars) {
				t.Errorf("%s: %d sidecars, %d copied to the machine folder", f.Key, len(f.Sidecars), len(f.Machine.Sidecars))
				continue
			}
			for i, sk := range f.Machine.Sidecars {
				copies++
				data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(sk)))
				sum := sha256.Sum256(data)
				if err != nil || hex.EncodeToString(sum[:]) != f.Sidecars[i].SHA256 {
					t.Errorf("machine copy %s of sidecar %s: %v, sha256 %x, want %s", sk, f.Sidecars[i].Key, err, sum, f.Sidecars[i].SHA256)
				}
			}
		}
	}
	if copies != len(seen) {
		t.Errorf("manifests name %d machine copies, the folders hold %d print files", copies, len(seen))
	}
	if !strings.Contains(stdout, "machine folders") {
		t.Errorf("the demo does not say where the machine folders are:\n%s", stdout)
	}
}
