package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// metaDir holds Dir's JSON sidecars, one per object at the same relative path plus
// ".json". It is hidden (leading dot) and kept out of the object folders, so a RIP or
// hot-folder watcher that picks up every file it sees finds print files only.
// Extended attributes were not used: they vanish when staff copy files to a share or
// a USB stick, and some filesystems lack them.
const metaDir = ".printworker-meta"

// tempPrefix starts, and tempSuffix ends, the name of a file being written
// (".tmp-<name>-<random>.part"): hidden from a watcher ignoring dot-files, and outside
// a RIP's filter by extension ("*.pdf", "*.png"), so no hot-folder watcher ever picks
// up a half-written print file.
const (
	tempPrefix = ".tmp-"
	tempSuffix = ".part"
)

// Dir stores objects as files under a root folder (a "hot folder").
//
// A Put writes a hidden temporary file in the destination folder, syncs it and
// renames it over the final name: on a POSIX filesystem the rename is atomic, so the
// final name holds either the previous complete file or the new complete file, never
// a partial one. The folder is synced too, so the rename survives a power cut. A
// crash may leave a ".tmp-*.part" file behind; Put of the same key later does not reuse
// it, such files are never listed, and RemoveLeftovers and SweepLeftovers remove them
// (leftovers.go).
type Dir struct {
	root string
}

type sidecar struct {
	ContentType string            `json:"contentType"`
	Filename    string            `json:"filename,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	SHA256      string            `json:"sha256"`
	Size        int64             `json:"size"`
}

// NewDir returns a Dir rooted at root, creating the folder when missing.
func NewDir(root string) (*Dir, error) {
	if root == "" {
		return nil, permanent("open", "", errors.New("empty directory"))
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, permanent("open", "", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, permanent("open", "", err)
	}
	return &Dir{root: abs}, nil
}

// Describe names the backend for logs.
func (d *Dir) Describe() string { return "dir:" + d.root }

// URL returns the file:// URL of key.
func (d *Dir) URL(key string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(d.path(key))}).String()
}

func (d *Dir) path(key string) string {
	return filepath.Join(d.root, filepath.FromSlash(key))
}

func (d *Dir) metaPath(key string) string {
	return filepath.Join(d.root, metaDir, filepath.FromSlash(key)+".json")
}

// dirError classifies a filesystem error by what it is. Permanent, with a reason a
// person can act on: a name too long for the filesystem (ENAMETOOLONG), a name it
// refuses (EINVAL, EILSEQ: characters a Windows or SMB share cannot hold), a permission
// problem (EACCES, EPERM), a path blocked by a file or
// a symlink loop (ENOTDIR, EISDIR, ELOOP): a retry meets each of them again.
// Transient: a full disk or quota (ENOSPC, EDQUOT), a filesystem remounted read-only
// (EROFS, as Linux does after a disk fault), an I/O error, a timeout or a missing
// mount, which may clear up.
func dirError(op, key string, err error) error {
	if e := contextError(op, key, err); e != nil {
		return e
	}
	why := func(reason string) error { return permanent(op, key, fmt.Errorf("%s: %w", reason, err)) }
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return permanent(op, key, fmt.Errorf("%w: %w", ErrNotFound, err))
	case errors.Is(err, syscall.ENAMETOOLONG):
		return why(fmt.Sprintf("name too long for the filesystem (at most %d bytes per folder or file name)", MaxSegmentBytes))
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.EILSEQ):
		return why("the filesystem refuses the name")
	case errors.Is(err, fs.ErrPermission):
		return why("permission denied: the worker may not write there")
	case errors.Is(err, fs.ErrExist), errors.Is(err, ErrInvalidKey):
		return permanent(op, key, err)
	case errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ELOOP):
		return why("a file or link is in the way of the path")
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return transient(op, key, fmt.Errorf("disk full or over quota: %w", err))
	case errors.Is(err, syscall.EROFS):
		return transient(op, key, fmt.Errorf("the filesystem is read-only: %w", err))
	}
	return transient(op, key, err)
}

// Put writes body to key atomically; see Dir.
func (d *Dir) Put(ctx context.Context, obj Object, body io.Reader) (PutResult, error) {
	if err := checkObject(obj); err != nil {
		return PutResult{}, err
	}
	final := d.path(obj.Key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	cr := newCheckedReader(&ctxReader{ctx: ctx, r: body}, obj)
	place := os.Rename
	if obj.IfAbsent {
		place = os.Link // fails with EEXIST when the name is taken, atomically
	}
	if err := writeAtomicWith(final, place, func(w io.Writer) error {
		_, err := io.Copy(w, cr)
		return err
	}); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return PutResult{}, permanent("put", obj.Key, fmt.Errorf("%w: %w", ErrExists, err))
		}
		return PutResult{}, putError(obj.Key, err, dirError)
	}
	res := PutResult{Key: obj.Key, Bytes: cr.n, SHA256: cr.sum()}
	meta, err := json.MarshalIndent(sidecar{
		ContentType: contentTypeOf(obj), Filename: filenameOf(obj),
		Metadata: obj.Metadata, SHA256: res.SHA256, Size: res.Bytes,
	}, "", "  ")
	if err != nil {
		return PutResult{}, permanent("put", obj.Key, err)
	}
	// The sidecar follows the data: a crash in between leaves the previous sidecar
	// (or none), which a retried Put of the same key replaces.
	mp := d.metaPath(obj.Key)
	if err := os.MkdirAll(filepath.Dir(mp), 0o755); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	if err := writeAtomic(mp, func(w io.Writer) error { _, err := w.Write(meta); return err }); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	return res, nil
}

// writeAtomic writes a file through a synced temporary file renamed into place.
func writeAtomic(final string, write func(io.Writer) error) error {
	return writeAtomicWith(final, os.Rename, write)
}

// writeAtomicWith writes a file through a synced temporary file that place (os.Rename,
// or os.Link for a create that must not replace) puts at final; the temporary name is
// removed in every case.
func writeAtomicWith(final string, place func(oldname, newname string) error, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(final)
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(final)+"-*"+tempSuffix)
	if err != nil {
		return err
	}
	lockTemp(f) // held until f closes: a live writer's file is no leftover (leftovers.go)
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; print staff and other programs must read them.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	err = place(f.Name(), final)
	_ = os.Remove(f.Name()) // gone after a rename; after a link, the second name
	if err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Get opens key for reading.
func (d *Dir) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, permanent("get", key, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, dirError("get", key, err)
	}
	f, err := os.Open(d.path(key))
	if err != nil {
		return nil, Info{}, dirError("get", key, err)
	}
	info, err := d.info(f, key)
	if err != nil {
		f.Close()
		return nil, Info{}, dirError("get", key, err)
	}
	return f, info, nil
}

// Stat describes key.
func (d *Dir) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, permanent("stat", key, err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, dirError("stat", key, err)
	}
	f, err := os.Open(d.path(key))
	if err != nil {
		return Info{}, dirError("stat", key, err)
	}
	defer f.Close()
	info, err := d.info(f, key)
	if err != nil {
		return Info{}, dirError("stat", key, err)
	}
	return info, nil
}

func (d *Dir) info(f *os.File, key string) (Info, error) {
	st, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	if st.IsDir() {
		return Info{}, fmt.Errorf("%w: %s is a folder", fs.ErrNotExist, key)
	}
	info := Info{Key: key, Size: st.Size(), ModTime: st.ModTime(), ContentType: "application/octet-stream"}
	raw, err := os.ReadFile(d.metaPath(key))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A file dropped in by hand has no sidecar.
		return info, nil
	case err != nil:
		return Info{}, err
	}
	return withSidecar(info, raw)
}

// withSidecar completes info with the content type and metadata of its sidecar (the
// hot folder and SFTP keep them alike).
func withSidecar(info Info, raw []byte) (Info, error) {
	var sc sidecar
	if err := json.Unmarshal(raw, &sc); err != nil {
		return Info{}, fmt.Errorf("metadata sidecar of %s: %w", info.Key, err)
	}
	if sc.ContentType != "" {
		info.ContentType = sc.ContentType
	}
	info.Metadata = sc.Metadata
	return info, nil
}

// List returns the objects whose key starts with prefix, sorted by key. Hidden
// files and folders (temporary files, sidecars) are skipped.
func (d *Dir) List(ctx context.Context, prefix string) ([]Info, error) {
	var out []Info
	err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == d.root {
			return nil
		}
		rel, err := filepath.Rel(d.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			// Skip folders that cannot hold a match.
			if !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) || !e.Type().IsRegular() {
			return nil
		}
		st, err := e.Info()
		if err != nil {
			return err
		}
		out = append(out, Info{Key: key, Size: st.Size(), ModTime: st.ModTime()})
		return nil
	})
	if err != nil {
		return nil, dirError("list", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Delete removes key and its metadata. Deleting a missing key succeeds, as on S3.
func (d *Dir) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return permanent("delete", key, err)
	}
	if err := ctx.Err(); err != nil {
		return dirError("delete", key, err)
	}
	for _, p := range []string{d.path(key), d.metaPath(key)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dirError("delete", key, err)
		}
	}
	return nil
}
