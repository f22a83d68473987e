package worker

import "testing"

func TestSidecarMachineKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, name, sidecar, want string }{
		{"dtf/6100-1-1001-Shirt-Front.png", "6100-1001-Shirt-Front.png", "6100-1001-Shirt-Front-white.png", "dtf/6100-1-1001-Shirt-Front-white.png"},
		{"cut/7-1-9-Sticker.pdf", "7-9-Sticker.pdf", "7-9-Sticker-cut.pdf", "cut/7-1-9-Sticker-cut.pdf"},
		// A sidecar whose name does not extend the file's keeps its own name.
		{"dtf/a.png", "x.png", "other-white.png", "dtf/other-white.png"},
	} {
		if got := sidecarMachineKey(c.key, c.name, c.sidecar); got != c.want {
			t.Errorf("sidecarMachineKey(%q, %q, %q) = %q, want %q", c.key, c.name, c.sidecar, got, c.want)
		}
	}
}
