package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
// Every file operation goes through an os.Root opened on the folder, and every path
// under it is checked component by component (Lstat) before use: a symbolic link
// anywhere under the root (an order folder, the sidecar folder .printworker-meta,
// a file) is refused with ErrLinkInPath, and os.Root keeps even a link swapped in
// between the check and the use from leading outside the folder. The root folder
// itself may be a link (operator configuration).
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
	r    *os.Root
}

// ErrLinkInPath is wrapped by the error of a hot folder or SFTP operation whose path
// under the folder's root holds a symbolic link. Permanent: the folder backends
// write, read and delete only their own files, never through a link planted there.
var ErrLinkInPath = errors.New("a symbolic link is in the path (links under the folder are not followed)")

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
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, permanent("open", "", err)
	}
	return &Dir{root: abs, r: r}, nil
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

// rel is key's path relative to the root; metaRel its sidecar's.
func rel(key string) string { return filepath.FromSlash(key) }

func metaRel(key string) string { return filepath.Join(metaDir, filepath.FromSlash(key)+".json") }

// noLinks refuses a path (relative to the root) of which any existing component is
// a symbolic link; components that do not exist yet are what a Put creates.
func (d *Dir) noLinks(name string) error {
	parts := strings.Split(name, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		st, err := d.r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "lstat", Path: filepath.ToSlash(p), Err: ErrLinkInPath}
		}
	}
	return nil
}

// escapes reports os.Root's refusal of a path that leads outside the root (a link
// swapped in after noLinks checked). os.Root's error has no exported value or type
// to test for, only its text, pinned by TestDirRefusesLinks.
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
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
	case errors.Is(err, ErrLinkInPath):
		return permanent(op, key, err)
	case escapes(err):
		return permanent(op, key, fmt.Errorf("%w: the path leads outside the hot folder: %w", ErrLinkInPath, err))
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
	final := rel(obj.Key)
	if err := d.mkdirs(final); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	cr := newCheckedReader(&ctxReader{ctx: ctx, r: body}, obj)
	place := d.r.Rename
	if obj.IfAbsent {
		place = d.r.Link // fails with EEXIST when the name is taken, atomically
	}
	if err := d.writeAtomicWith(final, place, func(w io.Writer) error {
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
	mp := metaRel(obj.Key)
	if err := d.mkdirs(mp); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	if err := d.writeAtomicWith(mp, d.r.Rename, func(w io.Writer) error { _, err := w.Write(meta); return err }); err != nil {
		return PutResult{}, dirError("put", obj.Key, err)
	}
	return res, nil
}

// mkdirs makes the folders of name (relative to the root), after checking that no
// existing component of its path is a link.
func (d *Dir) mkdirs(name string) error {
	if err := d.noLinks(name); err != nil {
		return err
	}
	if dir := filepath.Dir(name); dir != "." {
		return d.r.MkdirAll(dir, 0o755)
	}
	return nil
}

// createTemp creates a new temporary file beside final in the root, as
// os.CreateTemp does (which os.Root lacks).
func (d *Dir) createTemp(final string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(filepath.Dir(final), tempPrefix+filepath.Base(final)+"-"+strconv.FormatUint(rand.Uint64(), 36)+tempSuffix)
		f, err := d.r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name beside %s", filepath.ToSlash(final))
}

// writeAtomicWith writes a file through a synced temporary file that place (Rename,
// or Link for a create that must not replace) puts at final, both within the root;
// the temporary name is removed in every case.
func (d *Dir) writeAtomicWith(final string, place func(oldname, newname string) error, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(final)
	f, tmp, err := d.createTemp(final)
	if err != nil {
		return err
	}
	lockTemp(f) // held until f closes: a live writer's file is no leftover (leftovers.go)
	defer func() {
		if err != nil {
			f.Close()
			d.r.Remove(tmp)
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
	err = place(tmp, final)
	_ = d.r.Remove(tmp) // gone after a rename; after a link, the second name
	if err != nil {
		return err
	}
	return d.syncDir(dir)
}

func (d *Dir) syncDir(dir string) error {
	f, err := d.r.Open(dir)
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
	f, err := d.open(key)
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
	f, err := d.open(key)
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

// open opens key's file in the root, no link in its path.
func (d *Dir) open(key string) (*os.File, error) {
	if err := d.noLinks(rel(key)); err != nil {
		return nil, err
	}
	return d.r.Open(rel(key))
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
	raw, err := d.readMeta(key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A file dropped in by hand has no sidecar.
		return info, nil
	case err != nil:
		return Info{}, err
	}
	return withSidecar(info, raw)
}

func (d *Dir) readMeta(key string) ([]byte, error) {
	if err := d.noLinks(metaRel(key)); err != nil {
		return nil, err
	}
	return d.r.ReadFile(metaRel(key))
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
	// Within the root; WalkDir does not follow links (a linked folder is an entry
	// that is neither a folder nor a regular file, so it is skipped).
	err := fs.WalkDir(d.r.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		key := p
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
	for _, p := range []string{rel(key), metaRel(key)} {
		if err := d.noLinks(p); err != nil {
			return dirError("delete", key, err)
		}
		if err := d.r.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dirError("delete", key, err)
		}
	}
	return nil
}
