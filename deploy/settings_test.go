package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// settingsFile is the key of the fleet's settings file in the printworker-config
// ConfigMap, and its name where the pods mount it.
const (
	settingsFile  = "printworker.yaml"
	settingsMount = "/etc/printworker"
)

// TestSettingsFileConfigMap: every kustomization's ConfigMap holds a settings file
// that `printworker config check` takes (no unknown setting, every value valid), and
// every printworker container reads it: PRINTWORKER_CONFIG names it where the
// ConfigMap is mounted.
func TestSettingsFileConfigMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary")
	}
	bin := imageBinary(t)
	for _, dir := range kustomizations(t) {
		objs := build(t, dir)
		configMaps := map[string]bool{}
		for _, o := range objs {
			if o.meta.Kind != "ConfigMap" || !strings.HasPrefix(o.meta.Metadata.Name, "printworker-config") {
				continue
			}
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(o.yaml, &cm); err != nil {
				t.Fatal(err)
			}
			configMaps[cm.Name] = true
			text, ok := cm.Data[settingsFile]
			if !ok {
				t.Errorf("%v: no %s", o, settingsFile)
				continue
			}
			p := filepath.Join(t.TempDir(), settingsFile)
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "config", "check", p).CombinedOutput(); err != nil {
				t.Errorf("%v: printworker config check: %v\n%s", o, err, out)
			}
		}
		if len(configMaps) != 1 {
			t.Errorf("%s: %d printworker-config ConfigMaps, want 1", dir, len(configMaps))
		}
		for _, o := range objs {
			if o.meta.Kind != "Deployment" {
				continue
			}
			var d appsv1.Deployment
			if err := yaml.Unmarshal(o.yaml, &d); err != nil {
				t.Fatal(err)
			}
			volumes := map[string]string{}
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.ConfigMap != nil {
					volumes[v.Name] = v.ConfigMap.Name
				}
			}
			for _, c := range d.Spec.Template.Spec.Containers {
				if !strings.Contains(c.Image, "printworker") || c.Name == "hubsim" {
					continue
				}
				if got := envValue(c.Env, "PRINTWORKER_CONFIG"); got != settingsMount+"/"+settingsFile {
					t.Errorf("%v: %s: PRINTWORKER_CONFIG %q, want %s/%s", o, c.Name, got, settingsMount, settingsFile)
				}
				mounted := false
				for _, m := range c.VolumeMounts {
					mounted = mounted || m.MountPath == settingsMount && configMaps[volumes[m.Name]]
				}
				if !mounted {
					t.Errorf("%v: %s does not mount the printworker-config ConfigMap at %s", o, c.Name, settingsMount)
				}
			}
		}
	}
}
