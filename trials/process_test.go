//go:build trial

package trials

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testparallel"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
)

// processFixture is what the process-level tests (crash recovery, fleet shutdown) run
// real `printworker work` processes against: a private redis-server (a second process
// must share it, so miniredis will not do), the hub simulator with the sample designs,
// an S3 server over HTTP, and an enqueuer.
type processFixture struct {
	store, domain, key, secret string

	rs  *testredis.Server
	rdb *redis.Client
	// redisURL is what the worker processes connect to (rs's, or a cluster's).
	redisURL string
	sim      *hubsim.Server
	s3       *tests3.Server
	st       *storage.S3
	enq      *jobs.Enqueuer
}

// newProcessFixture starts the services; every hub call waits latency, so that
// work is in flight long enough to be observed. redisOpts configure the redis-server
// (testredis.AOF for the crash trials).
func newProcessFixture(t *testing.T, name string, latency time.Duration, redisOpts ...testredis.Option) *processFixture {
	t.Helper()
	f := &processFixture{store: name + "-store", domain: name + ".example", key: name + "-key", secret: name + "-secret"}
	f.rs = testredis.Start(t, redisOpts...)
	if f.rs.Kind == "miniredis" {
		t.Skip("needs a real redis-server: a second process shares it")
	}
	f.rdb = f.rs.Client(t)
	f.redisURL = f.rs.URL()
	f.startServices(t, f.rdb, latency)
	return f
}

// startServices starts the hub simulator and S3 and makes the enqueuer on rdb.
func (f *processFixture) startServices(t *testing.T, rdb redis.UniversalClient, latency time.Duration) {
	t.Helper()
	var err error
	f.sim, err = hubsim.New(hubsim.Config{
		Stores:      []hubsim.Store{{ID: f.store, Domains: []string{f.domain}, Keys: []hubsim.Key{{Key: f.key, Secret: f.secret}}}},
		DesignsDir:  "../hubsim/testdata/designs",
		DesignStore: f.store,
		Faults:      hubsim.Faults{Latency: latency},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.s3 = tests3.Start(t)
	if f.st, err = storage.NewS3(context.Background(), f.s3.Config); err != nil {
		t.Fatal(err)
	}
	if f.enq, err = jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{}); err != nil {
		t.Fatal(err)
	}
}

// enqueueOrders pushes and exports n orders named <prefix>-<i>, each with a mix of
// the sample designs, as intake would enqueue them; it returns the files each order
// must end with.
func (f *processFixture) enqueueOrders(t *testing.T, prefix string, n int) map[string]int {
	t.Helper()
	byID := map[int64]model.DesignRef{}
	for _, r := range f.sim.Designs() {
		byID[r.ID] = r
	}
	mixes := [][]int64{{1001}, {1002, 1003}, {1003}, {1002}, {1001, 1002}}
	filesOf := map[int64]int{1001: 3, 1002: 2, 1003: 1}
	ctx := context.Background()
	wantFiles := map[string]int{}
	for i := range n {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		o := &model.Order{OrderID: id, Domain: f.domain, Email: "kim@example.com", FirstName: "Kim", LastName: "Park",
			Created: "2024-07-01T12:00:00.000Z", Updated: "2024-07-01T12:00:00.000Z", Status: "paid",
			ShippingDetails: model.Address{City: "Busan", CountryCode: "KR"}, BillingDetails: model.Address{City: "Busan", CountryCode: "KR"}}
		for _, d := range mixes[i%len(mixes)] {
			o.LineItems = append(o.LineItems, model.LineItem{ID: d, Token: byID[d].Token, Quantity: 1 + i%3, Price: 12})
			wantFiles[id] += filesOf[d]
		}
		if _, err := f.enq.PushOrder(ctx, f.store, jobs.OpCreate, o); err != nil {
			t.Fatal(err)
		}
		if _, err := f.enq.ExportOrder(ctx, f.store, o); err != nil {
			t.Fatal(err)
		}
	}
	return wantFiles
}

// workArgs is the command line of a worker process against the fixture.
func (f *processFixture) workArgs(hubURL string, extra ...string) []string {
	args := []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms",
		"--redis-url", f.redisURL, "--hub-url", hubURL, "--hub-store", f.store, "--hub-api-key", f.key, "--hub-secret", f.secret,
		"--storage", "s3", "--s3-bucket", f.s3.Bucket, "--s3-endpoint", f.s3.Endpoint, "--s3-region", f.s3.Region,
		"--s3-access-key", f.s3.AccessKey, "--s3-secret-key", f.s3.SecretKey, "--s3-path-style",
	}
	return append(args, extra...)
}

// manifests counts the orders whose manifest exists.
func (f *processFixture) manifests(t *testing.T) int {
	t.Helper()
	objs, err := f.st.List(context.Background(), f.store+"/")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range objs {
		if strings.HasSuffix(o.Key, "/"+storage.ManifestName) {
			n++
		}
	}
	return n
}

// TestMain builds the printworker binary once, into a folder it removes at the end,
// and runs the trials. They mostly wait (on lease expiry, outages, workers draining),
// each against services of its own, so eight run at once.
func TestMain(m *testing.M) {
	testparallel.AtLeast(8)
	dir, err := os.MkdirTemp("", "printworker-trials-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	printworkerBin = filepath.Join(dir, "printworker")
	if out, err := exec.Command("go", "build", "-o", printworkerBin, "../cmd/printworker").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// printworkerBin is the binary every trial runs, built by TestMain.
var printworkerBin string

// buildPrintworker returns the binary TestMain built.
func buildPrintworker(t *testing.T) string {
	t.Helper()
	return printworkerBin
}
