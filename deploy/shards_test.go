package deploy

import (
	"fmt"
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
// ConfigMap's PRINTWORKER_EXPORT_QUEUE_SHARDS makes (which every kustomization sets:
// the binary's default, 8, is not in the manifests), the
// names as `printworker queues shards` prints them, and none for a queue that is no
// shard: a shard without a trigger would not scale workers up, and a trigger on a
// wrong name reads an empty list. Each shard's list length is the base's for the one
// exports queue divided by the shard count, rounded up, at least 1: KEDA scales on
// the largest trigger, so a shard holding 1/N of the backlog must ask for workers at
// 1/N of the base's length, or N shards would scale as if the backlog were N times
// smaller.
func TestScalerTriggersEveryExportShard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	bin := imageBinary(t)
	exportList := regexp.MustCompile(`^asynq:\{(exports[^}]*)\}:(pending|active)$`)
	// The base's lengths for the one queue exports, by list (pending, active).
	baseShards, baseTriggers := workerScaler(t, build(t, "k8s/base"))
	if baseShards != 1 {
		t.Fatalf("k8s/base sets %d export shards; the base lengths are for one queue", baseShards)
	}
	baseLength := map[string]int{}
	for _, tr := range baseTriggers {
		if m := exportList.FindStringSubmatch(tr.Metadata.ListName); m != nil && m[1] == "exports" {
			baseLength[m[2]] = listLength(t, "k8s/base", tr)
		}
	}
	if baseLength["pending"] == 0 || baseLength["active"] == 0 {
		t.Fatalf("k8s/base has no pending and active trigger on exports: %v", baseLength)
	}
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			shards, triggers := workerScaler(t, build(t, dir))
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
				wantLen := max(1, (baseLength[m[2]]+shards-1)/shards)
				if n := listLength(t, dir, tr); n != wantLen {
					t.Errorf("trigger on %s: listLength %d, want %d (the base's %d over %d shards, rounded up)",
						tr.Metadata.ListName, n, wantLen, baseLength[m[2]], shards)
				}
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

// TestScalerKeepsBaseTriggers: every list the base's worker ScaledObject scales on
// besides the exports (the pending tasks of orders and complete) has a trigger with
// the same list length in every kustomization. An overlay that replaces the triggers
// wholesale, as the cluster overlay does to name each export shard, must repeat
// them: without one, that queue's tasks never scale the workers up from zero.
func TestScalerKeepsBaseTriggers(t *testing.T) {
	exportList := regexp.MustCompile(`^asynq:\{exports[^}]*\}:`)
	_, baseTriggers := workerScaler(t, build(t, "k8s/base"))
	var others []scalerTrigger
	for _, tr := range baseTriggers {
		if !exportList.MatchString(tr.Metadata.ListName) {
			others = append(others, tr)
		}
	}
	if len(others) == 0 {
		t.Fatal("k8s/base scales on no list but the exports")
	}
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			_, triggers := workerScaler(t, build(t, dir))
			for _, want := range others {
				i := slices.IndexFunc(triggers, func(tr scalerTrigger) bool {
					return tr.Metadata.ListName == want.Metadata.ListName
				})
				if i < 0 {
					t.Errorf("no trigger on %s (the base has one)", want.Metadata.ListName)
					continue
				}
				if got, wantLen := listLength(t, dir, triggers[i]), listLength(t, "k8s/base", want); got != wantLen {
					t.Errorf("trigger on %s: listLength %d, the base's is %d", want.Metadata.ListName, got, wantLen)
				}
			}
		})
	}
}

type scalerTrigger struct {
	Type     string `json:"type"`
	Metadata struct {
		ListName   string `json:"listName"`
		ListLength string `json:"listLength"`
	} `json:"metadata"`
}

// workerScaler reads a rendered kustomization's export shard count (the settings
// file's jobs-and-workers.export-queue-shards in the ConfigMap, which must be set: the
// triggers name the shards, and the binary's default is not in the manifests) and the
// triggers of the worker's
// ScaledObject.
func workerScaler(t *testing.T, objs []object) (shards int, triggers []scalerTrigger) {
	t.Helper()
	defer func() {
		if shards == 0 {
			t.Fatal("the settings file does not set jobs-and-workers.export-queue-shards: the scaler's triggers cannot follow the binary's default")
		}
	}()
	for _, o := range objs {
		switch {
		case o.meta.Kind == "ConfigMap" && strings.HasPrefix(o.meta.Metadata.Name, "printworker-config"):
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(o.yaml, &cm); err != nil {
				t.Fatal(err)
			}
			var settings map[string]map[string]any
			if err := yaml.Unmarshal([]byte(cm.Data[settingsFile]), &settings); err != nil {
				t.Fatalf("%v: %s: %v", o, settingsFile, err)
			}
			if v, ok := settings["jobs-and-workers"]["export-queue-shards"]; ok {
				n, err := strconv.Atoi(fmt.Sprint(v))
				if err != nil {
					t.Fatalf("%v: export-queue-shards %v: %v", o, v, err)
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
	if triggers == nil {
		t.Fatal("no ScaledObject printworker-worker")
	}
	return shards, triggers
}

// listLength parses a trigger's listLength, a positive integer in a string.
func listLength(t *testing.T, source string, tr scalerTrigger) int {
	t.Helper()
	n, err := strconv.Atoi(tr.Metadata.ListLength)
	if err != nil || n < 1 {
		t.Fatalf("%s: trigger on %s: listLength %q is no positive integer", source, tr.Metadata.ListName, tr.Metadata.ListLength)
	}
	return n
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
