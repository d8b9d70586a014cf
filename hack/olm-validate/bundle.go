package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// validators are those `operator-sdk bundle validate --select-optional suite=operatorframework` runs: the
// default bundle validators (CSV, CRD, bundle), then the optional suite (OperatorHub metadata as the
// operatorhub/v2, standardcapabilities and standardcategories validators that replace the deprecated
// "operatorhub" one, good practices, APIs removed in the targeted Kubernetes version) and the objects
// validator (PodDisruptionBudgets, PriorityClasses, RBAC shipped as bundle objects). The multi-architecture
// validator is left out: it inspects the images in their registry.
var validators = []struct {
	name      string
	validator interfaces.Validator
}{
	{"csv", validation.ClusterServiceVersionValidator},
	{"crd", validation.CustomResourceDefinitionValidator},
	{"bundle", validation.BundleValidator},
	{"operatorhub/v2", validation.OperatorHubV2Validator},
	{"standardcapabilities", validation.StandardCapabilitiesValidator},
	{"standardcategories", validation.StandardCategoriesValidator},
	{"good-practices", validation.GoodPracticesValidator},
	{"alpha-deprecated-apis", validation.AlphaDeprecatedAPIsValidator},
	{"objects", validation.ObjectValidator},
}

// checkBundle decodes the bundle's manifests strictly, loads the bundle as OLM does, runs the
// operator-framework validators and Joulie's own checks, and compares its CRDs with the plain manifests'.
func checkBundle(r *report, dir string, plain *manifestSet, k8sVersion string) {
	set := decodeDir(r, filepath.Join(dir, "manifests"))
	checkCustomResources(r, set)
	decodeEmbeddedDeployments(r, set)
	compareCRDs(r, set, plain)

	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		r.errorf(dir, "the operator-framework bundle loader refuses it: %v", err)
		return
	}
	objs := bundle.ObjectsToValidate()
	if k8sVersion != "" {
		objs = append(objs, map[string]string{"k8s-version": k8sVersion})
	}
	for _, v := range validators {
		reportResults(r, v.name, v.validator.Validate(objs...))
	}
	checkOperatorHubFields(r, bundle)
	checkDescriptors(r, bundle)
	checkExamples(r, bundle)
}

// checkPlainCRDs runs the API server's CRD validation (through the operator-framework's CRD validator) on
// the CRDs of the plain manifests.
func checkPlainCRDs(r *report, plain *manifestSet) {
	var objs []any
	for _, c := range plain.crds {
		objs = append(objs, c.obj)
	}
	reportResults(r, "crd", validation.CustomResourceDefinitionValidator.Validate(objs...))
}

func reportResults(r *report, validator string, results []errors.ManifestResult) {
	for _, result := range results {
		where := fmt.Sprintf("[%s] %s", validator, result.Name)
		for _, e := range result.Errors {
			r.errorf(where, "%s", e.Error())
		}
		for _, w := range result.Warnings {
			r.warnf(where, "%s", w.Error())
		}
	}
}

// compareCRDs requires every CRD of the bundle to equal the plain manifests' CRD of the same name, so that
// `kubectl get` shows the same columns and the API server enforces the same schema whichever way Joulie was
// installed.
func compareCRDs(r *report, bundle, plain *manifestSet) {
	for _, b := range bundle.crds {
		p := findCRD(plain.crds, b.obj.Spec.Group, b.obj.Spec.Names.Kind)
		if p == nil {
			r.errorf(b.where, "CRD %s is not among the plain manifests", b.obj.Name)
			continue
		}
		// Compared as the API server stores them: with its defaults applied (validators may have defaulted one).
		bd, pd := b.obj.DeepCopy(), p.DeepCopy()
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(bd)
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(pd)
		if !equality.Semantic.DeepEqual(bd.Spec, pd.Spec) {
			r.errorf(b.where, "CRD %s differs from the plain manifests' copy at %v", b.obj.Name, differences(bd.Spec, pd.Spec))
		}
	}
}

// differences lists the JSON paths (at most five) where a and b differ.
func differences(a, b apiextensionsv1.CustomResourceDefinitionSpec) []string {
	var ja, jb any
	for _, x := range []struct {
		in  any
		out *any
	}{{a, &ja}, {b, &jb}} {
		data, _ := json.Marshal(x.in)
		_ = json.Unmarshal(data, x.out)
	}
	var paths []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		if len(paths) >= 5 || reflect.DeepEqual(x, y) {
			return
		}
		switch xv := x.(type) {
		case map[string]any:
			if yv, ok := y.(map[string]any); ok {
				keys := map[string]bool{}
				for k := range xv {
					keys[k] = true
				}
				for k := range yv {
					keys[k] = true
				}
				sorted := make([]string, 0, len(keys))
				for k := range keys {
					sorted = append(sorted, k)
				}
				sort.Strings(sorted)
				for _, k := range sorted {
					walk(path+"."+k, xv[k], yv[k])
				}
				return
			}
		case []any:
			if yv, ok := y.([]any); ok && len(xv) == len(yv) {
				for i := range xv {
					walk(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i])
				}
				return
			}
		}
		paths = append(paths, "spec"+path)
	}
	walk("", ja, jb)
	return paths
}

// checkExamples validates every alm-examples object against the bundle's CRD for its kind, as the API server
// would on `kubectl create` from the console.
func checkExamples(r *report, bundle *manifests.Bundle) {
	text := bundle.CSV.GetAnnotations()["alm-examples"]
	if text == "" {
		return
	}
	var examples []map[string]any
	if err := json.Unmarshal([]byte(text), &examples); err != nil {
		r.errorf("alm-examples", "not a JSON array of objects: %v", err)
		return
	}
	var crds []source[*apiextensionsv1.CustomResourceDefinition]
	for _, c := range bundle.V1CRDs {
		crds = append(crds, source[*apiextensionsv1.CustomResourceDefinition]{c.Name, c})
	}
	for i, e := range examples {
		where := fmt.Sprintf("alm-examples[%d]", i)
		set := &manifestSet{crds: crds}
		data, _ := json.Marshal(e)
		set.decode(r, where, data)
		checkCustomResources(r, set)
	}
}
