package main

// Flag groups and constructors shared by the long-running commands (work, serve,
// demo): Redis, hub clients, storage, renderer, worker settings, logging. Every flag
// is mirrored by an environment variable (envName), so a container sets them all
// through its environment.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/internal/telemetry"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// redisFlags connect to the Redis that holds the queue and the fleet's state.
type redisFlags struct {
	url            string
	sentinelMaster string
	sentinelAddrs  stringList
	clusterAddrs   stringList
	stateRetention time.Duration
	taskRetention  time.Duration
	poolSize       int
	idleConns      int
	// slots is the task slots (--concurrency) of a worker in this process, 0 for
	// none: the default idle connections follow it (worker.RedisIdleConns).
	slots        int
	exportShards int
}

// defaultExportShards is --export-queue-shards' default: eight queues keep a quiet
// store's exports beside a flooding store's instead of behind them, for about 1.2
// more Redis commands a second per idle worker, paid for by the slower default polls
// (docs/operations.md, "Export queue shards").
const defaultExportShards = jobs.DefaultExportShards

func addRedisFlags(fs *flag.FlagSet) *redisFlags {
	r := &redisFlags{}
	fs.StringVar(&r.url, "redis-url", "redis://127.0.0.1:6379/0", "Redis of the job queue: redis://[user:password@]host:port/db, rediss:// for TLS, redis-sentinel://[:password@]host:port[,host:port...][/db]?master=name for Sentinel, redis-cluster://[user:password@]host:port[,host:port...] for a Redis Cluster")
	fs.StringVar(&r.sentinelMaster, "redis-sentinel-master", "", "Sentinel master name: connect through --redis-sentinel-addrs (password and db from --redis-url)")
	fs.Var(&r.sentinelAddrs, "redis-sentinel-addrs", "Sentinel addresses host:port, comma separated")
	fs.Var(&r.clusterAddrs, "redis-cluster-addrs", "Redis Cluster nodes host:port, comma separated (some suffice: the client learns the others); password from --redis-url")
	fs.String("redis-url-file", "", "file holding --redis-url (it may carry a password)")
	fs.DurationVar(&r.stateRetention, "state-retention", jobs.DefaultStateTTL, "how long an order's export state stays in Redis after its last change: re-exports, updates and cancellations of an older order find nothing (docs/operations.md)")
	fs.IntVar(&r.poolSize, "redis-pool-size", 0, "most connections this process opens to Redis, besides asynq's one subscription (0: go-redis's default, 10 per CPU)")
	fs.IntVar(&r.idleConns, "redis-idle-conns", 0, "connections kept open while unused (0: a worker keeps one per --concurrency slot plus 8 for asynq's loops, so steady work dials none; other commands 1): fewer make a busy worker reconnect, which costs most with TLS (docs/operations.md)")
	fs.IntVar(&r.exportShards, "export-queue-shards", defaultExportShards, "export queues a fleet spreads design exports over, each store's over two of them so that one store's flood does not hold up the others (1 to 16; on a Redis Cluster each queue is one slot): every intake, worker and command of the fleet uses the same number, workers raised first (docs/operations.md#export-queue-shards)")
	fs.DurationVar(&r.taskRetention, "task-retention", 0, "keep every finished task this long instead of its type's own retention (pushes 24h, exports and completions 72h); a duplicate enqueue is refused only while the first is kept (0: each type's own)")
	return r
}

// enqueuerConfig is the Enqueuer's share of the Redis flags.
func (r *redisFlags) enqueuerConfig(log *slog.Logger) jobs.EnqueuerConfig {
	return jobs.EnqueuerConfig{StateTTL: r.stateRetention, Retention: r.taskRetention, Logger: log, ExportShards: r.exportShards}
}

// validateShards checks --export-queue-shards. 0 is 1, as in jobs.EnqueuerConfig and
// worker.Config: flags built without addRedisFlags (tests) mean the one queue.
func (r *redisFlags) validateShards() error {
	if r.exportShards < 0 || jobs.ValidateExportShards(max(r.exportShards, 1)) != nil {
		return usageError(fmt.Sprintf("--export-queue-shards %d: want 1 to %d", r.exportShards, jobs.MaxExportShards))
	}
	return nil
}

// options turns the flags into go-redis options (plain, Sentinel failover or
// Cluster).
func (r *redisFlags) options() (redis.UniversalClient, error) {
	if err := r.validateShards(); err != nil {
		return nil, err
	}
	if strings.HasPrefix(r.url, "redis-cluster://") || len(r.clusterAddrs) > 0 {
		return r.cluster()
	}
	if strings.HasPrefix(r.url, "redis-sentinel://") {
		if r.sentinelMaster != "" || len(r.sentinelAddrs) > 0 {
			return nil, usageError("--redis-url redis-sentinel://... already names the Sentinels and master; drop --redis-sentinel-master/-addrs")
		}
		fo, err := parseSentinelURL(r.url)
		if err != nil {
			return nil, usageError("--redis-url: " + err.Error())
		}
		r.pool(&fo.PoolSize, &fo.MaxIdleConns)
		return redis.NewFailoverClient(fo), nil
	}
	opt, err := redis.ParseURL(r.url)
	if err != nil {
		return nil, usageError("--redis-url: " + err.Error())
	}
	if r.sentinelMaster == "" {
		if len(r.sentinelAddrs) > 0 {
			return nil, usageError("--redis-sentinel-addrs needs --redis-sentinel-master")
		}
		r.pool(&opt.PoolSize, &opt.MaxIdleConns)
		return redis.NewClient(opt), nil
	}
	if len(r.sentinelAddrs) == 0 {
		return nil, usageError("--redis-sentinel-master needs --redis-sentinel-addrs")
	}
	fo := &redis.FailoverOptions{
		MasterName: r.sentinelMaster, SentinelAddrs: r.sentinelAddrs,
		Username: opt.Username, Password: opt.Password, DB: opt.DB, TLSConfig: opt.TLSConfig,
	}
	r.pool(&fo.PoolSize, &fo.MaxIdleConns)
	return redis.NewFailoverClient(fo), nil
}

// pool applies the pool flags: a process keeps --redis-idle-conns connections, by
// default a worker one per task slot and asynq loop (worker.RedisIdleConns), others 1,
// and asynq's subscription (docs/operations.md, "Redis connections and polling").
// A size or idle count in the URL (pool_size=, max_idle_conns=) wins.
func (r *redisFlags) pool(size, idle *int) {
	if *size == 0 && r.poolSize > 0 {
		*size = r.poolSize
	}
	if *idle == 0 {
		switch {
		case r.idleConns > 0:
			*idle = r.idleConns
		case r.slots > 0:
			*idle = worker.RedisIdleConns(r.slots)
		default:
			*idle = 1
		}
	}
	// go-redis's default pool (10 per CPU) must hold what is kept idle.
	if *size == 0 && *idle > 10*runtime.GOMAXPROCS(0) {
		*size = *idle
	}
}

// cluster is a Redis Cluster client from redis-cluster://[user:password@]host:port[,...]
// or --redis-cluster-addrs (user and password then from a redis:// --redis-url).
// Every key printworker uses carries a hash tag and each script touches one tag, so
// the fleet runs on a cluster unchanged (docs/operations.md, "Redis Cluster").
func (r *redisFlags) cluster() (redis.UniversalClient, error) {
	co := &redis.ClusterOptions{}
	switch {
	case strings.HasPrefix(r.url, "redis-cluster://"):
		if len(r.clusterAddrs) > 0 {
			return nil, usageError("--redis-url redis-cluster://... already names the nodes; drop --redis-cluster-addrs")
		}
		u, err := url.Parse(r.url)
		if err != nil {
			return nil, usageError("--redis-url: " + err.Error())
		}
		if u.User != nil {
			co.Username = u.User.Username()
			co.Password, _ = u.User.Password()
		}
		co.Addrs = hostList(u.Host, "6379")
		if db := strings.Trim(u.Path, "/"); db != "" && db != "0" {
			return nil, usageError("--redis-url: a Redis Cluster has only database 0")
		}
	default:
		if r.sentinelMaster != "" || strings.HasPrefix(r.url, "redis-sentinel://") {
			return nil, usageError("--redis-cluster-addrs and Sentinel exclude each other")
		}
		opt, err := redis.ParseURL(r.url)
		if err != nil {
			return nil, usageError("--redis-url: " + err.Error())
		}
		if opt.DB != 0 {
			return nil, usageError("--redis-url: a Redis Cluster has only database 0")
		}
		co.Username, co.Password, co.TLSConfig = opt.Username, opt.Password, opt.TLSConfig
		co.Addrs = r.clusterAddrs
	}
	if len(co.Addrs) == 0 {
		return nil, usageError("--redis-url redis-cluster:// names no node")
	}
	// Each node gets a pool of its own: the pool flags apply per node.
	r.pool(&co.PoolSize, &co.MaxIdleConns)
	return redis.NewClusterClient(co), nil
}

// hostList splits a URL's comma-separated hosts, giving those without a port port.
func hostList(hosts, port string) []string {
	var out []string
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, port)
		}
		out = append(out, h)
	}
	return out
}

// parseSentinelURL reads the Sentinel form asynq documents:
// redis-sentinel://[:password@]host1[:port][,host2[:port]...][/db]?master=name
// (optional sentinel_password=...). The password is the master's.
func parseSentinelURL(raw string) (*redis.FailoverOptions, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	master := u.Query().Get("master")
	if master == "" {
		return nil, fmt.Errorf("redis-sentinel:// needs ?master=<name>")
	}
	fo := &redis.FailoverOptions{MasterName: master, SentinelPassword: u.Query().Get("sentinel_password")}
	if u.User != nil {
		fo.Username = u.User.Username()
		fo.Password, _ = u.User.Password()
	}
	fo.SentinelAddrs = hostList(u.Host, "26379")
	if len(fo.SentinelAddrs) == 0 {
		return nil, fmt.Errorf("redis-sentinel:// names no Sentinel")
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if fo.DB, err = strconv.Atoi(db); err != nil {
			return nil, fmt.Errorf("redis-sentinel:// database %q is not a number", db)
		}
	}
	return fo, nil
}

// connect returns a client that has answered a PING, so a wrong address fails at
// start with one line.
func (r *redisFlags) connect(ctx context.Context) (redis.UniversalClient, error) {
	rdb, err := r.options()
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("redis %s: %w", redactRedisURL(r.url), err)
	}
	return rdb, nil
}

// hubFlags build one hub client per store: one store from the flags, or several
// from --hub-stores-file, all sharing the endpoint settings.
type hubFlags struct {
	baseURL, store, apiKey, secret, encoding string
	storesFile                               string
	orders, templates, designs               endpointFlags
	domains                                  stringList
	deleteDomain                             string
	mediaURL                                 string
	timeout                                  time.Duration
	maxExport, maxMedia                      byteSize
	fetchAllow                               stringList
	minRate                                  byteSize
	minRateWindow                            time.Duration
	// http sends the hub calls (traced when tracing is on); nil: the hub client's
	// default. It must dial through guard (hubHTTP does).
	http  *http.Client
	guard *netguard.Guard
}

type endpointFlags struct{ url, version, word string }

func addHubFlags(fs *flag.FlagSet) *hubFlags {
	h := &hubFlags{maxExport: hub.DefaultMaxExportBytes, maxMedia: hub.DefaultMaxMediaBytes, minRate: hub.DefaultMinRate}
	fs.StringVar(&h.baseURL, "hub-url", "", "base URL of the hub (every resource unless overridden)")
	fs.StringVar(&h.store, "hub-store", "", "hub store id")
	fs.StringVar(&h.apiKey, "hub-api-key", "", "hub API key")
	fs.StringVar(&h.secret, "hub-secret", "", "hub API secret")
	fs.String("hub-secret-file", "", "file holding the hub API secret")
	fs.StringVar(&h.storesFile, "hub-stores-file", "", `JSON file of several stores: [{"store":"s1","apiKey":"k","secret":"x","domains":["shop.example"]}]`)
	fs.StringVar(&h.encoding, "hub-signature-encoding", "hex", "signature encoding: hex or base64")
	for _, r := range []struct {
		name, version string
		ep            *endpointFlags
	}{{"orders", string(hub.V2022), &h.orders}, {"templates", string(hub.V2022), &h.templates}, {"designs", string(hub.V2023), &h.designs}} {
		fs.StringVar(&r.ep.url, "hub-"+r.name+"-url", "", "base URL of the "+r.name+" resource (default --hub-url)")
		fs.StringVar(&r.ep.version, "hub-"+r.name+"-version", r.version, "API version of the "+r.name+" resource: v1, 2022-08 or 2023-10")
		fs.StringVar(&r.ep.word, "hub-"+r.name+"-header-word", hub.DefaultWord, "vendor word of the "+r.name+" header names (X-<Word>-Store)")
	}
	fs.Var(&h.domains, "hub-domains", "order domains configured for the store (orders with another domain are refused before sending); empty accepts any")
	fs.StringVar(&h.deleteDomain, "hub-delete-domain", hub.DomainInQuery, "how delete order sends the domain: query or header")
	fs.StringVar(&h.mediaURL, "hub-media-url", hub.DefaultMediaURL, "media download address with {base} {_id} {token} {originalname}")
	fs.DurationVar(&h.timeout, "hub-timeout", hub.DefaultTimeout, "bound of one hub call (headers only for downloads)")
	fs.Var(&h.maxExport, "hub-max-export-bytes", "largest export download accepted, e.g. 4GiB")
	fs.Var(&h.maxMedia, "hub-max-media-bytes", "largest media download accepted, e.g. 512MiB")
	fs.Var(&h.minRate, "hub-min-rate", "slowest export or media body accepted: bytes per --hub-min-rate-window of waiting (0 turns the check off)")
	fs.DurationVar(&h.minRateWindow, "hub-min-rate-window", hub.DefaultMinRateWindow, "window of --hub-min-rate")
	fs.Var(&h.fetchAllow, "fetch-allow", "internal destinations media downloads and redirects may reach besides the configured hub endpoints: CIDRs, addresses or host:port, comma-separated (e.g. 10.20.0.0/16,cdn.internal:8443)")
	return h
}

// netGuard returns the outbound guard of --fetch-allow, built once and shared by
// every store's client and the hub transport.
func (h *hubFlags) netGuard() (*netguard.Guard, error) {
	if h.guard != nil {
		return h.guard, nil
	}
	g, err := netguard.New(h.fetchAllow)
	if err != nil {
		return nil, usageError("--fetch-allow: " + err.Error())
	}
	h.guard = g
	return g, nil
}

// storeCreds are one store's credentials.
type storeCreds struct {
	Store   string   `json:"store"`
	APIKey  string   `json:"apiKey"`
	Secret  string   `json:"secret"`
	Domains []string `json:"domains"`
}

// clients returns the hub client of every configured store.
func (h *hubFlags) clients(log *slog.Logger) (map[string]*hub.Client, error) {
	enc, err := hub.ParseSignatureEncoding(h.encoding)
	if err != nil {
		return nil, usageError(err.Error())
	}
	eps := map[string]hub.Endpoint{}
	var errs []error
	for name, ep := range map[string]endpointFlags{"orders": h.orders, "templates": h.templates, "designs": h.designs} {
		v, err := hub.ParseVersion(ep.version)
		if err != nil {
			errs = append(errs, fmt.Errorf("--hub-%s-version: %w", name, err))
		}
		eps[name] = hub.Endpoint{BaseURL: ep.url, Version: v, Word: ep.word}
	}
	var creds []storeCreds
	if h.store != "" {
		creds = append(creds, storeCreds{Store: h.store, APIKey: h.apiKey, Secret: h.secret, Domains: h.domains})
	}
	if h.storesFile != "" {
		b, err := os.ReadFile(h.storesFile)
		if err != nil {
			return nil, fmt.Errorf("--hub-stores-file: %w", err)
		}
		var more []storeCreds
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&more); err != nil {
			return nil, usageError(fmt.Sprintf("--hub-stores-file %s: %v", h.storesFile, err))
		}
		creds = append(creds, more...)
	}
	if len(creds) == 0 {
		errs = append(errs, errors.New("no hub store: set --hub-store (with --hub-api-key, --hub-secret) or --hub-stores-file"))
	}
	if len(errs) > 0 {
		return nil, usageError(errors.Join(errs...).Error())
	}
	guard, err := h.netGuard()
	if err != nil {
		return nil, err
	}
	if h.minRateWindow <= 0 {
		return nil, usageError(fmt.Sprintf("--hub-min-rate-window %s: want a positive duration", h.minRateWindow))
	}
	minRate := int64(h.minRate)
	if minRate == 0 {
		minRate = -1 // off
	}
	out := map[string]*hub.Client{}
	for _, c := range creds {
		if _, dup := out[c.Store]; dup {
			return nil, usageError(fmt.Sprintf("hub store %q configured twice", c.Store))
		}
		cl, err := hub.NewClient(hub.Config{
			Store: c.Store, APIKey: c.APIKey, Secret: c.Secret, Encoding: enc, BaseURL: h.baseURL,
			Orders: eps["orders"], Templates: eps["templates"], Designs: eps["designs"],
			DeleteDomain: h.deleteDomain, Domains: c.Domains, Timeout: h.timeout,
			MaxExportBytes: int64(h.maxExport), MaxMediaBytes: int64(h.maxMedia), MediaURL: h.mediaURL,
			MinRate: minRate, MinRateWindow: h.minRateWindow, Guard: guard,
			Logger: log, HTTPClient: h.http,
		})
		if err != nil {
			return nil, usageError(fmt.Sprintf("hub store %q: %v", c.Store, err))
		}
		out[c.Store] = cl
	}
	return out, nil
}

// hubFor adapts a client map to the worker's lookup.
func hubFor(clients map[string]*hub.Client) worker.HubFor {
	return func(store string) (worker.Hub, error) {
		c, ok := clients[store]
		if !ok {
			return nil, fmt.Errorf("no hub credentials configured for store %q", store)
		}
		return c, nil
	}
}

// storageFlags choose and configure the storage backend.
type storageFlags struct {
	kind   string
	dir    string
	s3     storage.S3Config
	sftp   storage.SFTPConfig
	part   byteSize
	layout string
}

func addStorageFlags(fs *flag.FlagSet) *storageFlags {
	s := &storageFlags{part: byteSize(storage.DefaultPartSize)}
	fs.StringVar(&s.kind, "storage", "dir", "storage backend: dir (a local hot folder), s3 or sftp")
	fs.StringVar(&s.dir, "storage-dir", "printworker-output", "folder of the dir backend")
	fs.StringVar(&s.s3.Bucket, "s3-bucket", "", "S3 bucket")
	fs.StringVar(&s.s3.Endpoint, "s3-endpoint", "", "S3-compatible endpoint, e.g. http://minio:9000 (empty: AWS)")
	fs.StringVar(&s.s3.Region, "s3-region", "", "S3 region (default from the AWS chain, else us-east-1)")
	fs.StringVar(&s.s3.AccessKey, "s3-access-key", "", "S3 access key (empty: the standard AWS credential chain)")
	fs.StringVar(&s.s3.SecretKey, "s3-secret-key", "", "S3 secret key")
	fs.String("s3-secret-key-file", "", "file holding the S3 secret key")
	fs.BoolVar(&s.s3.PathStyle, "s3-path-style", false, "address the bucket in the path (most self-hosted S3 stores need it)")
	fs.StringVar(&s.s3.Checksum, "s3-checksum", storage.ChecksumWhenRequired, "request checksums: when_required (works with most S3-compatible stores) or when_supported (AWS default, CRC32)")
	fs.Var(&s.part, "s3-part-size", "multipart upload part size, at least 5MiB")
	fs.IntVar(&s.s3.Concurrency, "s3-concurrency", storage.DefaultConcurrency, "parts of one upload in flight")
	fs.StringVar(&s.s3.PublicBaseURL, "s3-public-url", "", "base URL of links to stored files (a CDN or public bucket website)")
	fs.DurationVar(&s.s3.LinkExpiry, "s3-link-expiry", storage.DefaultLinkExpiry, "lifetime of the presigned links in manifests and events when --s3-public-url is not set (at most 168h)")
	fs.BoolVar(&s.s3.CreateBucket, "s3-create-bucket", false, "create the bucket at start when missing")
	fs.StringVar(&s.sftp.URL, "sftp-url", "", "SFTP folder of the sftp backend: sftp://user@host[:port]/path (/~/path: under the login folder); never a password, the user logs in with --sftp-key-file")
	fs.StringVar(&s.sftp.KeyFile, "sftp-key-file", "", "private key of the SFTP user (OpenSSH or PEM format, without a passphrase)")
	fs.StringVar(&s.sftp.KnownHosts, "sftp-known-hosts", "", "known_hosts file holding the SFTP server's host key (e.g. from ssh-keyscan -p PORT HOST); other keys are refused")
	fs.StringVar(&s.sftp.HostKey, "sftp-host-key", "", "the SFTP server's host key fingerprint (SHA256:..., as ssh-keygen -l prints it), instead of --sftp-known-hosts")
	fs.DurationVar(&s.sftp.DialTimeout, "sftp-dial-timeout", storage.DefaultSFTPDialTimeout, "limit on connecting and logging in to the SFTP server")
	fs.StringVar(&s.layout, "storage-layout", storage.DefaultLayout, "object key pattern: {store} {date} {domain} {order} {design} {view} {product} {filename} {type}; {order} in a folder is <order>@<domain> unless {domain} is placed")
	return s
}

// storageBackend is what the commands need of a backend.
type storageBackend interface {
	worker.Storage
	Describe() string
}

func (s *storageFlags) open(ctx context.Context) (storageBackend, error) {
	if err := (storage.Layout{Pattern: s.layout}).Validate(); err != nil {
		return nil, usageError("--storage-layout: " + err.Error())
	}
	switch s.kind {
	case "dir":
		d, err := storage.NewDir(s.dir)
		if err != nil {
			return nil, fmt.Errorf("--storage-dir: %w", err)
		}
		return d, nil
	case "s3":
		cfg := s.s3
		cfg.PartSize = int64(s.part)
		st, err := storage.NewS3(ctx, cfg)
		if err != nil {
			return nil, usageError(err.Error())
		}
		return st, nil
	case "sftp":
		st, err := storage.NewSFTP(s.sftp)
		if err != nil {
			return nil, usageError(err.Error())
		}
		return st, nil
	}
	return nil, usageError(fmt.Sprintf("--storage %q: want dir, s3 or sftp", s.kind))
}

// closeStorage ends the connections of a backend that holds some (SFTP) once nothing
// uses it any more.
func closeStorage(st storageBackend) {
	if c, ok := st.(io.Closer); ok {
		_ = c.Close()
	}
}

// renderFlags configure the local renderer.
type renderFlags struct {
	basis, lang string
	strict      bool
	maxPixels   int64
	maxSVGCost  int64
	fontDirs    stringList
	fallback    string
	fallbackDir stringList
	coverage    bool
	direction   string
	workers     int
	pngSpeed    string
	colour      *colourFlags
}

func addRenderFlags(fs *flag.FlagSet) *renderFlags {
	r := &renderFlags{}
	fs.StringVar(&r.basis, "render-basis", render.BasisPoint, "physical size basis: point (1 template px = 1 pt) or pixel")
	fs.StringVar(&r.lang, "render-lang", "", "language of text values drawn (default: each value's first)")
	fs.BoolVar(&r.strict, "render-strict", false, "fail a render on an unknown font or a character no font has, instead of falling back with a warning")
	fs.Int64Var(&r.maxPixels, "render-max-pixels", render.DefaultMaxPixels, "largest output raster in pixels")
	fs.Int64Var(&r.maxSVGCost, "render-max-svg-cost", render.DefaultMaxSVGCost, "most drawing work a raster output's SVG layers may cost, in pixel operations (about 4-15 ns each); more is refused before drawing")
	fs.Var(&r.fontDirs, "font-dir", "extra font folder, repeatable")
	fs.StringVar(&r.fallback, "font-fallback", strings.Join(fonts.DefaultFallback, ","), "comma-separated font families tried in order for characters a text's font lacks (\"none\": no fallback)")
	fs.Var(&r.fallbackDir, "font-fallback-dir", "folder searched for the --font-fallback families and by coverage, repeatable (default: Debian's Noto and Symbola folders, where present)")
	fs.BoolVar(&r.coverage, "font-fallback-coverage", true, "after the --font-fallback chain, take a character from any font of the --font-fallback-dir folders whose coverage has it (false: only the chain)")
	fs.StringVar(&r.direction, "text-direction", render.TextDirectionLTR, "paragraph direction of text lines, the designer's fabric.js direction: ltr (fabric.js's default), rtl, or auto (each line's first strong letter)")
	fs.IntVar(&r.workers, "render-workers", 0, "compositing parallelism of one render (default: CPUs)")
	fs.StringVar(&r.pngSpeed, "png-speed", render.PNGSpeedBalanced, "PNG encoding: balanced (deflate level 1) or fastest (Huffman-only: less CPU, larger files)")
	r.colour = addColourFlags(fs)
	return r
}

func (r *renderFlags) renderer() (*render.Renderer, error) {
	rr, err := render.New(render.Options{Basis: r.basis, Lang: r.lang, Strict: r.strict, MaxPixels: r.maxPixels, MaxSVGCost: r.maxSVGCost,
		FontDirs: r.fontDirs, FontFallback: fallbackFamilies(r.fallback), FallbackFontDirs: r.fallbackDir, NoCoverageFallback: !r.coverage, TextDirection: r.direction, Workers: r.workers, PNGSpeed: r.pngSpeed})
	if err != nil {
		return nil, usageError(err.Error())
	}
	return rr, nil
}

// fallbackFamilies parses --font-fallback: a comma-separated list, "none" for none.
func fallbackFamilies(v string) []string {
	out := []string{}
	if strings.TrimSpace(v) == "none" {
		return out
	}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// workerFlags are the worker's own settings.
type workerFlags struct {
	concurrency     int
	weights         mapFlag
	strict          bool
	shutdown        time.Duration
	exportTimeout   time.Duration
	pushTimeout     time.Duration
	budget          byteSize
	mode            string
	modes           mapFlag
	ratePerMinute   float64
	rateBurst       int
	rateMaxWait     time.Duration
	storeShare      float64
	filenamePattern string
	fileDate        string
	backoffBase     time.Duration
	backoffMax      time.Duration
	retryWindow     time.Duration
	hubTries        int
	shop            *shopFloorFlags
	gangLease       time.Duration
	gangTick        time.Duration
	polling         worker.Polling
	maxQuantity     int
}

// defaultStoreShare keeps half of every worker's slots for other stores than a
// flooding one (docs/pipeline.md, "Rate limit").
const defaultStoreShare = 0.5

func addWorkerFlags(fs *flag.FlagSet) *workerFlags {
	w := &workerFlags{budget: worker.DefaultMemoryBudget}
	quiet := worker.QuietPolling()
	fs.DurationVar(&w.polling.Idle, "poll-idle", quiet.Idle, "how long an idle worker waits before asking its queues again: a task enqueued meanwhile waits up to this unless another worker is awake (one command per queue each time)")
	fs.DurationVar(&w.polling.Delayed, "poll-delayed", quiet.Delayed, "how often retries and scheduled tasks that came due are queued: a retry runs up to this late (two commands per queue each time)")
	fs.DurationVar(&w.polling.Janitor, "poll-janitor", quiet.Janitor, "how often finished tasks past their retention are deleted (one command per queue each time, deleting up to 100 tasks per 8 s of this interval)")
	t := worker.DefaultTimeouts()
	fs.IntVar(&w.concurrency, "concurrency", worker.DefaultConcurrency, "tasks run at once")
	fs.Var(&w.weights, "queue-weight", "queue=weight, repeatable; overrides the defaults orders=6, complete=6, exports=3, events=2, sync=1, gang=1, pages=1 one queue at a time")
	fs.BoolVar(&w.strict, "strict-priority", false, "serve a queue only when every heavier one is empty")
	fs.DurationVar(&w.shutdown, "shutdown-timeout", worker.DefaultShutdownTimeout, "wait for running tasks on shutdown; unfinished ones go back to the queue")
	fs.DurationVar(&w.exportTimeout, "export-timeout", t["design:export"], "bound of one design export attempt")
	fs.DurationVar(&w.pushTimeout, "push-timeout", t["order:push"], "bound of one order push attempt")
	fs.Var(&w.budget, "memory-budget", "memory for concurrent renders, e.g. 2GiB")
	fs.StringVar(&w.mode, "mode", worker.ModeAuto, "export mode: render, download or auto (render; download what the renderer cannot draw)")
	fs.Var(&w.modes, "store-mode", "store=mode, repeatable: the export mode of one store")
	fs.Float64Var(&w.ratePerMinute, "hub-rate-per-minute", worker.DefaultRateLimit().PerMinute, "hub calls a minute per store, shared by the whole fleet (0: unlimited)")
	fs.IntVar(&w.rateBurst, "hub-rate-burst", worker.DefaultRateLimit().Burst, "hub calls a store may make at once")
	fs.DurationVar(&w.rateMaxWait, "hub-rate-max-wait", worker.DefaultRateLimitMaxWait, "longest wait in a slot for the store's next hub token before a task's first hub call; a longer one sends the task back to the queue, counting no retry (negative: always wait)")
	fs.Float64Var(&w.storeShare, "store-max-share", defaultStoreShare, "fraction of a worker's slots (--concurrency) one store's tasks may hold while another store has work there (alone: no cap), at least one; more go back to the queue, counting no retry (1: no cap; no cap either when the worker serves one store)")
	fs.StringVar(&w.filenamePattern, "filename-pattern", defaultFilenamePattern, "file name pattern of the order folder with [order] [line] [qty] [id] [design] [date] [created] [title] [product] [store]; hub: each view's own export filename (docs/storage.md#file-names)")
	fs.StringVar(&w.fileDate, "filename-date", "order", "[date] in file names: order (its day) or design (its creation day, as [created])")
	fs.DurationVar(&w.backoffBase, "retry-base", 5*time.Second, "first retry delay of a transient failure (doubles, with jitter)")
	fs.DurationVar(&w.backoffMax, "retry-max", 10*time.Minute, "longest retry delay")
	fs.DurationVar(&w.retryWindow, "export-retry-window", worker.DefaultExportRetryWindow, "a design export is retried until this long after its first failure, then archived (an operator retry gets the whole window again)")
	fs.IntVar(&w.hubTries, "hub-tries", worker.DefaultHubRetry().Tries, "tries of each idempotent hub read (design, view export, media) inside one attempt, each through the rate limit")
	fs.DurationVar(&w.gangLease, "gang-lease", sheetjob.DefaultLease, "lease of a gang group's sheet builder, renewed while it builds: after a crash its batch is rebuilt once the lease ends")
	fs.DurationVar(&w.gangTick, "gang-tick", sheetjob.DefaultTick, "how often the worker checks the gang groups' cut-offs")
	fs.IntVar(&w.maxQuantity, "max-quantity", jobs.DefaultMaxQuantity, "largest quantity of one order line: an order with more (not from the intake, which refuses it) fails for good at its push and completion")
	w.shop = addShopFloorFlags(fs)
	return w
}

func (w *workerFlags) config(layout string, log *slog.Logger) (worker.Config, error) {
	// Weights given override the defaults one queue at a time, so naming one queue
	// does not silently stop the others from being served.
	weights := worker.DefaultQueues()
	for q, v := range w.weights {
		var n int
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil {
			return worker.Config{}, usageError(fmt.Sprintf("--queue-weight %s=%s: want a number", q, v))
		}
		weights[q] = n
	}
	cfg := worker.Config{
		Concurrency: w.concurrency, Queues: weights, StrictPriority: w.strict, ShutdownTimeout: w.shutdown,
		Timeouts:     map[string]time.Duration{"design:export": w.exportTimeout, "order:push": w.pushTimeout},
		MemoryBudget: int64(w.budget), Mode: w.mode, Modes: w.modes,
		RateLimit:        worker.RateLimit{PerMinute: w.ratePerMinute, Burst: w.rateBurst},
		RateLimitMaxWait: w.rateMaxWait, StoreShare: w.storeShare,
		Backoff: worker.Backoff{Base: w.backoffBase, Max: w.backoffMax},
		Layout:  storage.Layout{Pattern: layout}, Filenames: filenames.Options{Pattern: filenamePattern(w.filenamePattern)},
		FileDate: w.fileDate, Logger: log, GangLease: w.gangLease, GangTick: w.gangTick,
		Polling: w.polling, MaxQuantity: w.maxQuantity,
	}
	cfg.HubRetry = worker.HubRetry{Tries: w.hubTries}
	cfg.RetryWindows = map[string]time.Duration{"design:export": w.retryWindow}
	sf, err := w.shop.config()
	if err != nil {
		return cfg, err
	}
	cfg.ShopFloor = sf
	if err := cfg.Validate(); err != nil {
		return cfg, usageError(err.Error())
	}
	return cfg, nil
}

// logFlags choose the log level and format.
type logFlags struct{ level, format string }

func addLogFlags(fs *flag.FlagSet) *logFlags {
	l := &logFlags{}
	fs.StringVar(&l.level, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&l.format, "log-format", "json", "json or text")
	return l
}

func (l *logFlags) logger(e env) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(l.level)); err != nil {
		return nil, usageError("--log-level: " + err.Error())
	}
	opts := &slog.HandlerOptions{Level: lv}
	var log *slog.Logger
	switch l.format {
	case "json":
		log = slog.New(slog.NewJSONHandler(e.stderr, opts))
	case "text":
		log = slog.New(slog.NewTextHandler(e.stderr, opts))
	default:
		return nil, usageError(fmt.Sprintf("--log-format %q: want json or text", l.format))
	}
	e.redisLogs.use(log)
	return log, nil
}

// setupTracing reads the OTEL_* environment (tracing is off without it) for a
// process of the given role (intake, worker). A bad setting is logged and leaves
// tracing off rather than stopping the process: traces are a diagnosis aid, not part
// of the work.
func setupTracing(ctx context.Context, e env, role string, log *slog.Logger) *telemetry.Tracing {
	tr, err := telemetry.Setup(ctx, e.getenv, "printworker-"+role, telemetry.WithConsole(e.stderr))
	if err != nil {
		log.Warn("tracing", "err", err, "enabled", tr.Enabled())
	}
	if tr.Enabled() {
		log.Info("tracing on", "exporter", tr.Exporter)
	}
	return tr
}

// stopTracing flushes the spans still buffered; it runs last, after the drain, so
// the spans of the final tasks are not lost.
func stopTracing(tr *telemetry.Tracing, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		log.Warn("tracing: flush on shutdown", "err", err)
	}
}

// hubHTTP returns the hub clients' HTTP client in a process running concurrency
// tasks at once, traced like tracedHTTP when tr is enabled. net/http's default
// transport keeps 2 idle connections per host: with more tasks than that nearly every
// hub call dialled a new connection and left a socket in TIME_WAIT (about 4,700 at
// once at 300 exports/s in bench/pipeline, on the way to exhausting ephemeral ports).
// One idle connection per task lets every call reuse one. Every connection is dialled
// through guard (--fetch-allow, docs/hub-client.md).
func hubHTTP(tr *telemetry.Tracing, concurrency int, guard *netguard.Guard) *http.Client {
	t := guard.Transport(nil)
	t.MaxIdleConnsPerHost = max(concurrency, 2)
	if tr.Enabled() {
		return &http.Client{Transport: tr.Transport(t)}
	}
	return &http.Client{Transport: t}
}

// tracedHTTP returns an HTTP client whose requests are client spans of tr (URLs
// redacted: hub URLs hold design and media tokens), or nil (each client's own
// default) when tracing is off.
func tracedHTTP(tr *telemetry.Tracing) *http.Client {
	if !tr.Enabled() {
		return nil
	}
	return &http.Client{Transport: tr.Transport(http.DefaultTransport)}
}

// defaultFilenamePattern names an order folder's files: the order number first, so a
// file copied out of its folder still says whose it is, and one pattern for every
// view, so an order's files read alike (docs/storage.md#file-names).
const defaultFilenamePattern = "[order]-[id]-[title]"

// filenamePattern turns --filename-pattern into the worker's: "hub" names each view
// by its own export filename pattern from the hub (the worker's empty pattern).
func filenamePattern(flag string) string {
	if flag == "hub" {
		return ""
	}
	return flag
}
