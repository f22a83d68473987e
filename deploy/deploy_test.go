package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Offline validation of everything under deploy/: every kustomize overlay renders,
// every object decodes strictly (unknown fields are errors) into its k8s.io/api type
// or validates against its CRD schema kept in deploy/crds, every PRINTWORKER_*
// variable the manifests and the compose file set is a flag of the command they run,
// and the image's binary builds with the Dockerfile's flags.

// kustomizations lists the base and every overlay.
func kustomizations(t *testing.T) []string {
	t.Helper()
	dirs := []string{"k8s/base"}
	overlays, err := filepath.Glob("k8s/overlays/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(overlays) == 0 {
		t.Fatal("no overlays under k8s/overlays")
	}
	return append(dirs, overlays...)
}

type object struct {
	source string
	yaml   []byte
	meta   struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
}

func (o object) String() string {
	return fmt.Sprintf("%s: %s %s/%s", o.source, o.meta.Kind, o.meta.Metadata.Namespace, o.meta.Metadata.Name)
}

// build renders a kustomization in-process (the same code as `kustomize build`).
func build(t *testing.T, dir string) []object {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out []object
	for _, r := range m.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		o := object{source: dir, yaml: b}
		if err := yaml.Unmarshal(b, &o.meta); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out = append(out, o)
	}
	return out
}

// builtins maps the built-in kinds printworker uses to their Go types.
func builtin(apiVersion, kind string) any {
	switch apiVersion + " " + kind {
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}
	case "v1 Service":
		return &corev1.Service{}
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}
	case "v1 Secret":
		return &corev1.Secret{}
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}
	case "networking.k8s.io/v1 Ingress":
		return &networkingv1.Ingress{}
	case "networking.k8s.io/v1 NetworkPolicy":
		return &networkingv1.NetworkPolicy{}
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}
	}
	return nil
}

func TestManifestsValidate(t *testing.T) {
	crds, err := loadCRDSchemas("crds")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			objs := build(t, dir)
			kinds := map[string]int{}
			for _, o := range objs {
				kinds[o.meta.Kind]++
				if o.meta.Metadata.Name == "" {
					t.Errorf("%v: no name", o)
				}
				if typed := builtin(o.meta.APIVersion, o.meta.Kind); typed != nil {
					if err := yaml.UnmarshalStrict(o.yaml, typed); err != nil {
						t.Errorf("%v: %v", o, err)
						continue
					}
					checkWorkload(t, o, typed)
					continue
				}
				group, version, _ := strings.Cut(o.meta.APIVersion, "/")
				s, ok := crds[group+"/"+version+" "+o.meta.Kind]
				if !ok {
					t.Errorf("%v: no Go type or CRD schema to validate %s %s against", o, o.meta.APIVersion, o.meta.Kind)
					continue
				}
				var v map[string]any
				if err := yaml.Unmarshal(o.yaml, &v); err != nil {
					t.Fatal(err)
				}
				// The CRD schema leaves metadata to the API server: it is an ObjectMeta.
				meta, _ := yaml.Marshal(v["metadata"])
				if err := yaml.UnmarshalStrict(meta, &metav1.ObjectMeta{}); err != nil {
					t.Errorf("%v: metadata: %v", o, err)
				}
				delete(v, "metadata")
				for _, e := range s.validate("", v) {
					t.Errorf("%v: %s", o, e)
				}
			}
			for _, want := range []string{"Deployment", "Service", "Ingress", "PodDisruptionBudget", "ScaledObject", "NetworkPolicy", "ServiceMonitor", "PrometheusRule", "ConfigMap"} {
				if kinds[want] == 0 {
					t.Errorf("%s renders no %s", dir, want)
				}
			}
		})
	}
}

// checkWorkload holds the rules a platform team relies on.
func checkWorkload(t *testing.T, o object, typed any) {
	t.Helper()
	d, ok := typed.(*appsv1.Deployment)
	if !ok {
		return
	}
	sel := d.Spec.Selector.MatchLabels
	for k, v := range sel {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("%v: selector %s=%s does not match the pod template", o, k, v)
		}
	}
	spec := d.Spec.Template.Spec
	for _, c := range spec.Containers {
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%v: container %s has no memory request/limit", o, c.Name)
		}
		if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			t.Errorf("%v: container %s may escalate privileges", o, c.Name)
		}
		if len(c.Args) == 0 {
			t.Errorf("%v: container %s runs no printworker command", o, c.Name)
		}
		if len(c.Args) > 0 && c.Args[0] != "hubsim" && (c.ReadinessProbe == nil || c.LivenessProbe == nil) {
			t.Errorf("%v: container %s lacks probes", o, c.Name)
		}
	}
	if spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil || !*spec.SecurityContext.RunAsNonRoot {
		t.Errorf("%v: pods may run as root", o)
	}
	if d.Labels["app.kubernetes.io/component"] == "worker" {
		c := spec.Containers[0]
		shutdown := envValue(c.Env, "PRINTWORKER_SHUTDOWN_TIMEOUT")
		st, err := time.ParseDuration(shutdown)
		if err != nil {
			t.Fatalf("%v: PRINTWORKER_SHUTDOWN_TIMEOUT %q: %v", o, shutdown, err)
		}
		if spec.TerminationGracePeriodSeconds == nil || time.Duration(*spec.TerminationGracePeriodSeconds)*time.Second <= st {
			t.Errorf("%v: terminationGracePeriodSeconds must exceed the worker's shutdown timeout %v", o, st)
		}
		if len(spec.TopologySpreadConstraints) == 0 {
			t.Errorf("%v: workers are not spread across nodes", o)
		}
	}
}

func envValue(env []corev1.EnvVar, name string) string {
	for _, e := range env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// binary builds the image's binary once with deploy/build-image-binary.sh (the
// Dockerfile's flags), as CI has no Docker engine to build the image itself.
var binaryOnce struct {
	sync.Once
	path string
	err  error
	out  []byte
}

func imageBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "printworker-image-")
		if err != nil {
			binaryOnce.err = err
			return
		}
		binaryOnce.path = filepath.Join(dir, "printworker")
		cmd := exec.Command("bash", "build-image-binary.sh", binaryOnce.path)
		binaryOnce.out, binaryOnce.err = cmd.CombinedOutput()
	})
	if binaryOnce.err != nil {
		t.Fatalf("build-image-binary.sh: %v\n%s", binaryOnce.err, binaryOnce.out)
	}
	return binaryOnce.path
}

func TestImageBinaryBuildsStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	bin := imageBinary(t)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "printworker ") {
		t.Fatalf("printworker version: %v %q", err, out)
	}
	if !bytes.Contains(binaryOnce.out, []byte("static binary")) {
		t.Errorf("build script did not confirm a static binary:\n%s", binaryOnce.out)
	}
}

var envRef = regexp.MustCompile(`\[(PRINTWORKER_[A-Z0-9_]+)\]`)

// commandEnv returns the PRINTWORKER_* variables a subcommand reads, from its --help.
func commandEnv(t *testing.T, bin, cmd string) map[string]bool {
	t.Helper()
	out, err := exec.Command(bin, cmd, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("printworker %s --help: %v\n%s", cmd, err, out)
	}
	vars := map[string]bool{}
	for _, m := range envRef.FindAllStringSubmatch(string(out), -1) {
		vars[m[1]] = true
	}
	if len(vars) == 0 {
		t.Fatalf("printworker %s --help lists no PRINTWORKER_* variables:\n%s", cmd, out)
	}
	return vars
}

// TestEnvironmentMatchesFlags checks that every variable a manifest or the compose file
// sets for a command is one that command reads: a misspelt variable would be ignored
// silently and the pod would run on a default.
func TestEnvironmentMatchesFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	bin := imageBinary(t)
	known := map[string]map[string]bool{}
	knownFor := func(cmd string) map[string]bool {
		if known[cmd] == nil {
			known[cmd] = commandEnv(t, bin, cmd)
		}
		return known[cmd]
	}
	// Variables from the shared ConfigMap reach every role through envFrom; each must be
	// read by at least one role that mounts it.
	configKeys := map[string][]string{}
	for _, dir := range kustomizations(t) {
		for _, o := range build(t, dir) {
			switch o.meta.Kind {
			case "Deployment":
				var d appsv1.Deployment
				if err := yaml.Unmarshal(o.yaml, &d); err != nil {
					t.Fatal(err)
				}
				for _, c := range d.Spec.Template.Spec.Containers {
					cmd := c.Args[0]
					vars := knownFor(cmd)
					for _, e := range c.Env {
						if strings.HasPrefix(e.Name, "PRINTWORKER_") && !vars[e.Name] {
							t.Errorf("%v: %s sets %s, which 'printworker %s' does not read", o, c.Name, e.Name, cmd)
						}
					}
					for _, ef := range c.EnvFrom {
						if ef.ConfigMapRef != nil {
							configKeys[ef.ConfigMapRef.Name] = append(configKeys[ef.ConfigMapRef.Name], cmd)
						}
					}
				}
			}
		}
		for _, o := range build(t, dir) {
			if o.meta.Kind != "ConfigMap" {
				continue
			}
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(o.yaml, &cm); err != nil {
				t.Fatal(err)
			}
			cmds := configKeys[cm.Name]
			for key := range cm.Data {
				if !strings.HasPrefix(key, "PRINTWORKER_") {
					continue
				}
				used := false
				for _, c := range cmds {
					used = used || knownFor(c)[key]
				}
				if !used {
					t.Errorf("%v: %s is read by none of %v", o, key, cmds)
				}
			}
		}
	}

	services := composeServices(t)
	for name, s := range services {
		if s.Image != "printworker:dev" {
			continue
		}
		vars := knownFor(s.Command[0])
		for k := range s.Environment {
			if strings.HasPrefix(k, "PRINTWORKER_") && !vars[k] {
				t.Errorf("compose service %s sets %s, which 'printworker %s' does not read", name, k, s.Command[0])
			}
		}
	}
}

type composeService struct {
	Image       string            `json:"image"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment"`
	Deploy      struct {
		Replicas int `json:"replicas"`
	} `json:"deploy"`
	DependsOn map[string]any `json:"depends_on"`
	Volumes   []string       `json:"volumes"`
}

// composeServices parses deploy/compose.yaml, resolving the YAML merge keys.
func composeServices(t *testing.T) map[string]composeService {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]composeService `json:"services"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return doc.Services
}

func TestComposeStack(t *testing.T) {
	s := composeServices(t)
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"redis", "minio", "create-bucket", "hubsim", "intake", "worker", "asynqmon"} {
		if _, ok := s[want]; !ok {
			t.Errorf("compose has no %s service (has %v)", want, names)
		}
	}
	if r := s["redis"]; !strings.Contains(strings.Join(r.Command, " "), "--appendonly yes") {
		t.Errorf("redis must persist with --appendonly yes, command %v", r.Command)
	}
	if w := s["worker"]; w.Deploy.Replicas != 2 || len(w.Command) == 0 || w.Command[0] != "work" {
		t.Errorf("want two workers running 'work', got %+v", w)
	}
	if i := s["intake"]; len(i.Command) == 0 || i.Command[0] != "serve" {
		t.Errorf("intake runs %v, want serve", i.Command)
	}
	if _, ok := s["worker"].DependsOn["create-bucket"]; !ok {
		t.Errorf("workers must wait for the bucket")
	}
	for n, keys := range map[string][]string{
		"intake": {"PRINTWORKER_REDIS_URL", "PRINTWORKER_SHOPIFY_SECRET"},
		"worker": {"PRINTWORKER_REDIS_URL", "PRINTWORKER_S3_BUCKET", "PRINTWORKER_HUB_URL", "PRINTWORKER_STORAGE"},
	} {
		for _, k := range keys {
			if s[n].Environment[k] == "" {
				t.Errorf("compose %s: %s not set", n, k)
			}
		}
	}
}

func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("grafana/printworker.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	if dash.Title == "" || dash.UID == "" || len(dash.Panels) < 6 {
		t.Fatalf("dashboard needs a title, uid and panels: %q %q %d", dash.Title, dash.UID, len(dash.Panels))
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if err := balanced(tg.Expr); err != nil || !strings.Contains(tg.Expr, "printworker_") && !strings.Contains(tg.Expr, "asynq_") {
				t.Errorf("panel %q: query %q: %v", p.Title, tg.Expr, err)
			}
		}
	}
}

// balanced is a cheap PromQL sanity check: brackets and quotes pair up.
func balanced(expr string) error {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	inQuote := false
	for _, r := range expr {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case pairs[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return fmt.Errorf("unbalanced %q", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 || inQuote {
		return fmt.Errorf("unclosed %q", stack)
	}
	if strings.TrimSpace(expr) == "" {
		return fmt.Errorf("empty")
	}
	return nil
}
