package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"
)

// strictCodec decodes YAML or JSON into the Go type registered for its apiVersion and kind (every built-in
// kind, CustomResourceDefinition and the OLM kinds) and reports unknown fields, duplicate fields and wrong
// types as errors, as `kubectl apply --validate=strict` and the API server's field validation do.
var strictCodec = func() runtime.Decoder {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(operatorsv1alpha1.AddToScheme(s))
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{Yaml: true, Strict: true})
}()

// manifestSet is what the typed decode found: CRDs and the objects of kinds no Go type exists for.
type manifestSet struct {
	crds   []source[*apiextensionsv1.CustomResourceDefinition]
	custom []source[*unstructured.Unstructured]
	// csvs holds every ClusterServiceVersion as written (not through its Go type), for its embedded Deployments.
	csvs []source[map[string]any]
}

type source[T any] struct {
	where string // file (and document number)
	obj   T
}

// decodeDir decodes every YAML or JSON file inside dir and its subdirectories (kubernetes/sample/ holds the
// Joulie resource), document by document.
func decodeDir(r *report, dir string) *manifestSet {
	set := &manifestSet{}
	var names []string
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := filepath.Ext(e.Name())
		if !e.IsDir() && (ext == ".yml" || ext == ".yaml" || ext == ".json") {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		r.errorf(dir, "%v", err)
		return set
	}
	sort.Strings(names)
	if len(names) == 0 {
		r.errorf(dir, "no manifest found")
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			r.errorf(path, "%v", err)
			continue
		}
		docs, err := documents(data)
		if err != nil {
			r.errorf(path, "not a YAML stream: %v", err)
			continue
		}
		for i, doc := range docs {
			where := path
			if len(docs) > 1 {
				where = fmt.Sprintf("%s (document %d)", path, i+1)
			}
			set.decode(r, where, doc)
		}
	}
	return set
}

// documents splits a YAML stream into its documents, leaving out the empty ones (comments only).
func documents(data []byte) ([][]byte, error) {
	reader := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		var content any
		if err := sigsyaml.Unmarshal(doc, &content); err != nil {
			return nil, err
		}
		if content != nil {
			docs = append(docs, doc)
		}
	}
}

// decode decodes one document strictly into its Go type and files the result.
func (set *manifestSet) decode(r *report, where string, doc []byte) {
	var raw map[string]any
	if err := sigsyaml.Unmarshal(doc, &raw); err == nil && raw["kind"] == operatorsv1alpha1.ClusterServiceVersionKind {
		set.csvs = append(set.csvs, source[map[string]any]{where, raw})
	}
	obj, gvk, err := strictCodec.Decode(doc, nil, nil)
	switch {
	case err != nil && runtime.IsNotRegisteredError(err):
		// A custom resource: checked against its CRD later. Duplicate keys are still an error.
		data, err := sigsyaml.YAMLToJSONStrict(doc)
		if err != nil {
			r.errorf(where, "%v", err)
			return
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			r.errorf(where, "%v", err)
			return
		}
		set.custom = append(set.custom, source[*unstructured.Unstructured]{where, u})
		return
	case err != nil && runtime.IsStrictDecodingError(err):
		r.errorf(where, "%s %s: %v", gvk.Kind, name(obj), err)
	case err != nil:
		r.errorf(where, "cannot be decoded into its Go type: %v", err)
		return
	}
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		set.crds = append(set.crds, source[*apiextensionsv1.CustomResourceDefinition]{where, crd})
	}
}

// decodeEmbeddedDeployments decodes each Deployment a CSV embeds (spec.install.spec.deployments[].spec, as
// written) strictly as an apps/v1 Deployment, the way OLM creates it.
func decodeEmbeddedDeployments(r *report, set *manifestSet) {
	for _, csv := range set.csvs {
		deployments, _, err := unstructured.NestedSlice(csv.obj, "spec", "install", "spec", "deployments")
		if err != nil || len(deployments) == 0 {
			r.errorf(csv.where, "spec.install.spec.deployments: none found (%v)", err)
			continue
		}
		for i, d := range deployments {
			entry, _ := d.(map[string]any)
			deployment := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": entry["name"]}, "spec": entry["spec"]}
			data, err := json.Marshal(deployment)
			if err != nil {
				r.errorf(csv.where, "deployments[%d]: %v", i, err)
				continue
			}
			(&manifestSet{}).decode(r, fmt.Sprintf("%s spec.install.spec.deployments[%d] (%v)", csv.where, i, entry["name"]), data)
		}
	}
}

func name(obj runtime.Object) string {
	if m, ok := obj.(interface{ GetName() string }); ok {
		return m.GetName()
	}
	return ""
}

// checkCustomResources validates every custom resource of the set against the CRD that defines it.
func checkCustomResources(r *report, set *manifestSet) {
	for _, c := range set.custom {
		gvk := c.obj.GroupVersionKind()
		crd := findCRD(set.crds, gvk.Group, gvk.Kind)
		if crd == nil {
			r.errorf(c.where, "no CRD among these manifests defines %s", gvk)
			continue
		}
		for _, problem := range validateAgainstCRD(c.obj.Object, crd) {
			r.errorf(c.where, "%s %s: %s", gvk.Kind, c.obj.GetName(), problem)
		}
	}
}

func findCRD(crds []source[*apiextensionsv1.CustomResourceDefinition], group, kind string) *apiextensionsv1.CustomResourceDefinition {
	for _, c := range crds {
		if c.obj.Spec.Group == group && c.obj.Spec.Names.Kind == kind {
			return c.obj
		}
	}
	return nil
}

// validateAgainstCRD checks a custom resource as the API server would on create: the version is served, the
// scope matches, the object satisfies the OpenAPI schema, and no field would be pruned as unknown.
// (CEL rules, x-kubernetes-validations, are not evaluated here.)
func validateAgainstCRD(obj map[string]any, crd *apiextensionsv1.CustomResourceDefinition) []string {
	u := unstructured.Unstructured{Object: obj}
	version := u.GroupVersionKind().Version
	var served *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == version && v.Served {
			served = v
		}
	}
	if served == nil {
		return []string{fmt.Sprintf("version %q is not served by CRD %s", version, crd.Name)}
	}
	var problems []string
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped && u.GetNamespace() != "" {
		problems = append(problems, fmt.Sprintf("metadata.namespace is set but %s is cluster-scoped", crd.Name))
	}
	if served.Schema == nil || served.Schema.OpenAPIV3Schema == nil {
		return append(problems, fmt.Sprintf("CRD %s version %s has no schema", crd.Name, version))
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(served.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return append(problems, fmt.Sprintf("schema of %s cannot be converted: %v", crd.Name, err))
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return append(problems, fmt.Sprintf("schema of %s is invalid: %v", crd.Name, err))
	}
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, validator) {
		problems = append(problems, e.Error())
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return append(problems, fmt.Sprintf("schema of %s is not structural: %v", crd.Name, err))
	}
	pruned := pruning.PruneWithOptions(runtime.DeepCopyJSON(obj), structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	for _, path := range pruned {
		problems = append(problems, fmt.Sprintf("unknown field %q (the API server would drop it)", path))
	}
	return problems
}
