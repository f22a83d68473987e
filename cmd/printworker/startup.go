package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/printworker/printworker/storage"
)

// Start-up helpers of the long-running commands: every bad setting reported at once,
// and nothing left on disk by a start that failed.

// joinErrors reports every non-nil error of a start-up check at once, so an operator
// fixes them in one round (--mode bogus --storage nfs names both). The result is a
// usage error (exit 2) when every part is one.
func joinErrors(errs ...error) error {
	var all []error
	usage := true
	for _, err := range errs {
		if err == nil {
			continue
		}
		all = append(all, err)
		var u errUsage
		usage = usage && errors.As(err, &u)
	}
	if len(all) == 0 {
		return nil
	}
	if usage {
		msgs := make([]string, len(all))
		for i, err := range all {
			msgs[i] = err.Error()
		}
		return usageError(strings.Join(msgs, "\n"))
	}
	return errors.Join(all...)
}

// validate checks the storage flags without touching the backend.
func (s *storageFlags) validate() error {
	var errs []error
	if err := (storage.Layout{Pattern: s.layout}).Validate(); err != nil {
		errs = append(errs, usageError("--storage-layout: "+err.Error()))
	}
	switch s.kind {
	case "dir", "s3":
	case "sftp":
		if err := s.sftp.Validate(); err != nil {
			errs = append(errs, usageError("--storage sftp: "+strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
	default:
		errs = append(errs, usageError(fmt.Sprintf("--storage %q: want dir, s3 or sftp", s.kind)))
	}
	if s.s3.LinkExpiry <= 0 || s.s3.LinkExpiry > storage.MaxLinkExpiry {
		errs = append(errs, usageError(fmt.Sprintf("--s3-link-expiry %s: want a duration above 0 and at most %s (the S3 signature limit)", s.s3.LinkExpiry, storage.MaxLinkExpiry)))
	}
	return joinErrors(errs...)
}

// missingDirs lists the folders of path that do not exist yet, deepest first: what
// opening the dir backend will create.
func missingDirs(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	var out []string
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, os.ErrNotExist) {
			return out
		}
		out = append(out, p)
		if filepath.Dir(p) == p {
			return out
		}
	}
}

// openForStart opens the storage backend and returns undo, which removes the
// folders the dir backend created if they are still empty: a `work` that fails
// after this (Redis down, a busy metrics port) leaves no empty output folder behind.
func (s *storageFlags) openForStart(ctx context.Context) (storageBackend, func(), error) {
	var created []string
	if s.kind == "dir" {
		created = missingDirs(s.dir)
	}
	st, err := s.open(ctx)
	undo := func() {
		for _, d := range created {
			if os.Remove(d) != nil { // not empty (or gone): leave it and its parents
				return
			}
		}
	}
	if err != nil {
		undo()
		return nil, func() {}, err
	}
	return st, undo, nil
}
