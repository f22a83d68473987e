package storage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Leftovers: a writer killed mid-Put (kill -9, a lost machine) leaves its hidden
// temporary file (".tmp-<name>-<random>.part") behind. Dir and SFTP remove them in
// two places: the retry of the same write (RemoveLeftovers, called by the worker
// before a retried attempt's Put) and a sweep when a worker starts (SweepLeftovers).
// Only names of our temporary pattern are touched, and only files no live writer
// can be using:
//   - Dir: a writer holds an advisory lock (flock) on its temporary file while it
//     writes, which the kernel drops when the writer dies; a file whose lock can be
//     taken and that has not changed for LeftoverGrace is a dead writer's. Where the
//     filesystem has no locks, the file must be LeftoverSafeAge old.
//   - SFTP has no locks: a file must be unchanged for LeftoverSFTPAge on the retry of
//     its write (a live writer writes on, so its file keeps changing), and for
//     LeftoverSafeAge for the sweep.
const (
	// LeftoverGrace covers a temporary file's first instant, between its creation
	// and its lock, and the instant between its close and its rename.
	LeftoverGrace = 10 * time.Second
	// LeftoverSFTPAge is how long an SFTP temporary file of the same key must be
	// unchanged for a retried write to remove it. A live writer stalled that long
	// loses its file: its rename fails and its attempt is retried, nothing is lost.
	LeftoverSFTPAge = time.Minute
	// LeftoverSafeAge is the age at which the start-up sweep removes a temporary file
	// it cannot prove dead by a lock: no write takes that long (the export's asynq
	// timeout is 15 minutes).
	LeftoverSafeAge = time.Hour
)

// isTempName reports whether name is one of our temporary names, for final name base
// when base is not empty.
func isTempName(name, base string) bool {
	if !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, tempSuffix) {
		return false
	}
	if base == "" {
		mid := strings.TrimSuffix(strings.TrimPrefix(name, tempPrefix), tempSuffix)
		i := strings.LastIndexByte(mid, '-')
		return i > 0 && i < len(mid)-1
	}
	// ".tmp-<base>-<random>.part": the random part has no '-' of its own only in
	// SFTP's names (hex); CreateTemp's are digits. Either way, what follows
	// "<base>-" up to the suffix has no '/' and no '-'.
	rest, ok := strings.CutPrefix(name, tempPrefix+base+"-")
	if !ok {
		return false
	}
	rnd := strings.TrimSuffix(rest, tempSuffix)
	return rnd != "" && !strings.ContainsAny(rnd, "-/")
}

// lockTemp takes the advisory lock a live writer holds on its temporary file until
// it closes it. A filesystem without locks makes it a no-op: the leftover checks then
// go by age alone.
func lockTemp(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// deadTemp reports whether the temporary file at p is a dead writer's (see above):
// its lock can be taken and it is older than grace, or locks are unsupported and it
// is older than LeftoverSafeAge.
func deadTemp(r *os.Root, p string, now time.Time, grace time.Duration) bool {
	// Through the folder's root, as every hot-folder path: a link is never followed.
	f, err := r.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	age := now.Sub(st.ModTime())
	switch err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); {
	case err == nil:
		// Closing f lets the lock go.
		return age >= grace
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false // a live writer
	default:
		return age >= LeftoverSafeAge
	}
}

// RemoveLeftovers removes the temporary files that dead writers of key left in its
// folder (and its sidecar's), and returns how many it removed. The worker calls it
// before the Put of a retried attempt.
func (d *Dir) RemoveLeftovers(ctx context.Context, key string) (int, error) {
	if err := ValidateKey(key); err != nil {
		return 0, permanent("put", key, err)
	}
	n := 0
	for _, final := range []string{rel(key), metaRel(key)} {
		dir := filepath.Dir(final)
		if err := d.noLinks(dir); err != nil {
			return n, dirError("put", key, err)
		}
		entries, err := readRootDir(d.r, dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return n, dirError("put", key, err)
		}
		base := filepath.Base(final)
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return n, dirError("put", key, err)
			}
			p := filepath.Join(dir, e.Name())
			if e.Type().IsRegular() && isTempName(e.Name(), base) && deadTemp(d.r, p, time.Now(), LeftoverGrace) && d.r.Remove(p) == nil {
				n++
			}
		}
	}
	return n, nil
}

// readRootDir lists dir (relative to r) through the root.
func readRootDir(r *os.Root, dir string) ([]fs.DirEntry, error) {
	f, err := r.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// SweepLeftovers walks the whole folder and removes every temporary file a dead
// writer left (see above; at least LeftoverSafeAge old where it has no lock to tell).
// The worker runs it once when it starts, in the background. It walks through the
// folder's root (fs.WalkDir over os.Root's FS): links are neither followed nor
// entered.
func (d *Dir) SweepLeftovers(ctx context.Context) (int, error) {
	n := 0
	now := time.Now()
	err := fs.WalkDir(d.r.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			// A folder that went away or cannot be read: skip it, sweep the rest.
			if e != nil && e.IsDir() && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := filepath.FromSlash(p)
		if e.Type().IsRegular() && isTempName(e.Name(), "") && deadTemp(d.r, name, now, LeftoverGrace) && d.r.Remove(name) == nil {
			n++
		}
		return nil
	})
	if err != nil {
		return n, dirError("sweep", "", err)
	}
	return n, nil
}

// RemoveLeftovers removes the SFTP temporary files of key (and of its sidecar)
// unchanged for LeftoverSFTPAge, and returns how many it removed.
func (s *SFTP) RemoveLeftovers(ctx context.Context, key string) (int, error) {
	if err := ValidateKey(key); err != nil {
		return 0, permanent("put", key, err)
	}
	n := 0
	err := s.do(ctx, "put", key, func(c *sftpConn) error {
		n = 0
		now := time.Now()
		for _, final := range []string{c.path(key), c.metaPath(key)} {
			entries, err := c.c.ReadDirContext(ctx, path.Dir(final))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return err
			}
			for _, e := range entries {
				if e.Mode().IsRegular() && isTempName(e.Name(), path.Base(final)) && now.Sub(e.ModTime()) >= LeftoverSFTPAge &&
					c.c.Remove(path.Join(path.Dir(final), e.Name())) == nil {
					n++
				}
			}
		}
		return nil
	})
	if err != nil {
		return n, sftpError("put", key, err)
	}
	return n, nil
}

// SweepLeftovers walks the SFTP folder and removes every temporary file unchanged
// for LeftoverSafeAge; the worker runs it once when it starts, in the background.
func (s *SFTP) SweepLeftovers(ctx context.Context) (int, error) {
	n := 0
	err := s.do(ctx, "sweep", "", func(c *sftpConn) error {
		n = 0
		now := time.Now()
		var walk func(dir string) error
		walk = func(dir string) error {
			entries, err := c.c.ReadDirContext(ctx, dir)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			for _, e := range entries {
				p := path.Join(dir, e.Name())
				switch {
				case e.IsDir():
					if err := walk(p); err != nil {
						return err
					}
				case e.Mode().IsRegular() && isTempName(e.Name(), "") && now.Sub(e.ModTime()) >= LeftoverSafeAge:
					if c.c.Remove(p) == nil {
						n++
					}
				}
			}
			return nil
		}
		return walk(c.root)
	})
	if err != nil {
		return n, sftpError("sweep", "", err)
	}
	return n, nil
}
