package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed bundle/ and kubernetes/ pass; each test below breaks one property in a copy and expects
// the checker to name it.

func TestCommittedManifestsPass(t *testing.T) {
	out, errs := check(t, nil)
	if errs != 0 {
		t.Fatalf("the committed manifests fail:\n%s", out)
	}
}

func TestNumberWhereAStringBelongsIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {`prometheus.io/port: "9000"`, `prometheus.io/port: 9000`},
	}, "cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.annotations of type string")
}

func TestUnknownFieldInAPlainManifestIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"kubernetes/20-operator.yml": {"  replicas: 1\n", "  replicas: 1\n  replica: 2\n"},
	}, `unknown field "spec.replica"`)
}

func TestSampleOutsideItsSchemaIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"kubernetes/sample/joulie.yml": {"restoreOnExit: true", "restoreOnExit: true\n    restoreOnExitt: true"},
	}, `unknown field "spec.agent.restoreOnExitt"`)
}

func TestBundleCRDDifferentFromThePlainOneIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulies.joulie.io-v1.crd.yml": {`name: "Agents ready"`, `name: "Agents Ready"`},
	}, "CRD joulies.joulie.io differs from the plain manifests' copy at [spec.versions[0].additionalPrinterColumns[1].name]")
}

func TestMissingCreatedAtIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {"createdAt:", "createdOn:"},
	}, `metadata.annotations["createdAt"] is missing`)
}

func TestDescriptorOfNoFieldIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {"path: agents.ready", "path: agents.readyy"},
	}, `status descriptor "agents.readyy" names no field of status`)
}

func TestCsvWithoutAnUpgradeEdgeIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {"olm.skipRange:", "olm.skipRangee:"},
	}, "no upgrade edge")
}

func TestSkipRangeHoldingTheCsvItselfIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {`olm.skipRange: <`, `olm.skipRange: <=`},
	}, "holds the CSV's own version")
}

func TestNamespaceTemplateWithoutPrivilegedIsRefused(t *testing.T) {
	expectError(t, map[string][2]string{
		"bundle/manifests/joulie.clusterserviceversion.yaml": {`"pod-security.kubernetes.io/enforce" : "privileged"`,
			`"pod-security.kubernetes.io/enforce" : "baseline"`},
	}, `label pod-security.kubernetes.io/enforce is "baseline"`)
}

// expectError checks a copy of the repository's manifests with the given edits (file → {old, new}) and
// requires an error containing want.
func expectError(t *testing.T, edits map[string][2]string, want string) {
	t.Helper()
	out, errs := check(t, edits)
	if errs == 0 || !strings.Contains(out, want) {
		t.Fatalf("want an error containing %q, got %d error(s):\n%s", want, errs, out)
	}
}

// check copies bundle/ and kubernetes/ into a temporary directory, applies the edits and runs every check.
func check(t *testing.T, edits map[string][2]string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	for _, tree := range []string{"bundle", "kubernetes"} {
		copyTree(t, filepath.Join("..", "..", tree), filepath.Join(dir, tree))
	}
	for file, e := range edits {
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(e[0])) {
			t.Fatalf("%s does not contain %q", file, e[0])
		}
		if err := os.WriteFile(path, bytes.Replace(data, []byte(e[0]), []byte(e[1]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	r := newReport(&out)
	run(r, filepath.Join(dir, "bundle"), filepath.Join(dir, "kubernetes"), "")
	return out.String(), r.errors
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
