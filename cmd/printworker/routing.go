package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// routingFlags name the routing rules file (docs/routing.md).
type routingFlags struct{ file string }

func addRoutingFlags(fs *flag.FlagSet) *routingFlags {
	r := &routingFlags{}
	fs.StringVar(&r.file, "routing-rules", "", "JSON file of routing rules copying print files by product, type, quantity, rush or store into machine folders (a prefix or bucket) a RIP watches (docs/routing.md)")
	return r
}

// load reads and checks the rules; nil without a file. Every problem of the file, and
// every bucket a hot folder cannot have, is reported at once as a usage error.
func (r *routingFlags) load(storageKind string) (worker.Router, *routing.Rules, error) {
	if r.file == "" {
		return nil, nil, nil
	}
	rules, err := routing.Load(r.file)
	if err != nil {
		return nil, nil, usageError("--routing-rules: " + indent(err))
	}
	if b := rules.Buckets(); len(b) > 0 && storageKind != "s3" {
		return nil, nil, usageError(fmt.Sprintf("--routing-rules: rules route to bucket(s) %s, which need --storage s3; a hot folder or an SFTP folder takes a prefix (a subfolder) instead", strings.Join(b, ", ")))
	}
	return rules, rules, nil
}

// setGangs gives the worker the gang groups of the rules (docs/gang.md); none
// without rules (a nil *Rules in the interface would not compare nil).
func setGangs(cfg *worker.Config, rules *routing.Rules) {
	if rules != nil {
		cfg.Gangs = rules
	}
}

// indent keeps the lines of a joined error apart and readable under the flag name.
func indent(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "\n  ")
}

// openBuckets opens a storage per routed bucket with the default bucket's settings
// (endpoint, credentials, part size, --s3-create-bucket).
func openBuckets(ctx context.Context, sf *storageFlags, rules *routing.Rules) (map[string]worker.Storage, error) {
	if rules == nil || len(rules.Buckets()) == 0 {
		return nil, nil
	}
	out := map[string]worker.Storage{}
	var errs []error
	for _, b := range rules.Buckets() {
		cfg := sf.s3
		cfg.PartSize = int64(sf.part)
		cfg.Bucket = b
		st, err := storage.NewS3(ctx, cfg)
		if err != nil {
			errs = append(errs, fmt.Errorf("--routing-rules bucket %s: %w", b, err))
			continue
		}
		out[b] = st
	}
	return out, errors.Join(errs...)
}
