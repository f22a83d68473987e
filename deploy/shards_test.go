package deploy

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestScalerTriggersEveryExportShard: in every kustomization the worker's
// ScaledObject has a pending and an active trigger for each export queue shard the
// ConfigMap's PRINTWORKER_EXPORT_QUEUE_SHARDS makes (one shard when unset), the
// names as `printworker queues shards` prints them, and none for a queue that is no
// shard: a shard without a trigger would not scale workers up, and a trigger on a
// wrong name reads an empty list.
func TestScalerTriggersEveryExportShard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	bin := imageBinary(t)
	exportList := regexp.MustCompile(`^asynq:\{(exports[^}]*)\}:(pending|active)$`)
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			objs := build(t, dir)
			shards := 1
			var triggers []scalerTrigger
			for _, o := range objs {
				switch {
				case o.meta.Kind == "ConfigMap" && strings.HasPrefix(o.meta.Metadata.Name, "printworker-config"):
					var cm corev1.ConfigMap
					if err := yaml.Unmarshal(o.yaml, &cm); err != nil {
						t.Fatal(err)
					}
					if v, ok := cm.Data["PRINTWORKER_EXPORT_QUEUE_SHARDS"]; ok {
						n, err := strconv.Atoi(v)
						if err != nil {
							t.Fatalf("%v: PRINTWORKER_EXPORT_QUEUE_SHARDS %q: %v", o, v, err)
						}
						shards = n
					}
				case o.meta.Kind == "ScaledObject" && o.meta.Metadata.Name == "printworker-worker":
					var so struct {
						Spec struct {
							Triggers []scalerTrigger `json:"triggers"`
						} `json:"spec"`
					}
					if err := yaml.Unmarshal(o.yaml, &so); err != nil {
						t.Fatal(err)
					}
					triggers = so.Spec.Triggers
				}
			}
			want := exportQueues(t, bin, shards)
			got := map[string][]string{}
			for _, tr := range triggers {
				m := exportList.FindStringSubmatch(tr.Metadata.ListName)
				if m == nil {
					continue
				}
				if !slices.Contains(want, m[1]) {
					t.Errorf("trigger on %s: %s is no export shard of %d (%q)", tr.Metadata.ListName, m[1], shards, want)
				}
				got[m[1]] = append(got[m[1]], m[2])
			}
			for _, q := range want {
				slices.Sort(got[q])
				if !slices.Equal(got[q], []string{"active", "pending"}) {
					t.Errorf("export shard %s has triggers on %q, want active and pending", q, got[q])
				}
			}
		})
	}
}

type scalerTrigger struct {
	Type     string `json:"type"`
	Metadata struct {
		ListName string `json:"listName"`
	} `json:"metadata"`
}

// exportQueues asks the binary for the export queues of n shards.
func exportQueues(t *testing.T, bin string, n int) []string {
	t.Helper()
	out, err := exec.Command(bin, "queues", "shards", "--export-queue-shards", strconv.Itoa(n)).CombinedOutput()
	if err != nil {
		t.Fatalf("printworker queues shards: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var qs []string
	for _, l := range lines[1:] {
		qs = append(qs, strings.Fields(l)[0])
	}
	if len(qs) != n {
		t.Fatalf("printworker queues shards: %d queues for %d shards:\n%s", len(qs), n, out)
	}
	return qs
}
