package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

// checkOperatorHubFields checks what an OperatorHub (community-operators) submission requires of a CSV and
// the operator-framework library leaves unchecked (its OperatorHub validator only checks maintainers and
// links that exist, and no annotation but capabilities and categories).
func checkOperatorHubFields(r *report, bundle *manifests.Bundle) {
	csv := bundle.CSV
	where := "[joulie] " + csv.Name
	annotations := csv.GetAnnotations()
	for _, key := range []string{"capabilities", "categories", "containerImage", "createdAt", "support",
		"repository", "description", "operatorframework.io/suggested-namespace"} {
		if strings.TrimSpace(annotations[key]) == "" {
			r.errorf(where, "metadata.annotations[%q] is missing", key)
		}
	}
	if v := annotations["createdAt"]; v != "" {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			r.errorf(where, "metadata.annotations[createdAt] %q is not an RFC 3339 time: %v", v, err)
		}
	}
	if v := annotations["repository"]; v != "" {
		checkURL(r, where, "metadata.annotations[repository]", v)
	}
	if v := annotations["description"]; strings.Contains(v, "\n") || len(v) >= len(csv.Spec.Description) {
		r.errorf(where, "metadata.annotations[description] must be one line, shorter than spec.description")
	}
	if v := annotations["operatorframework.io/suggested-namespace"]; v != "" {
		for _, msg := range k8svalidation.IsDNS1123Label(v) {
			r.errorf(where, "suggested namespace %q: %s", v, msg)
		}
	}
	if len(csv.Spec.Maintainers) == 0 {
		r.errorf(where, "spec.maintainers is empty")
	}
	if len(csv.Spec.Links) == 0 {
		r.errorf(where, "spec.links is empty")
	}
	if csv.Spec.Provider.URL == "" {
		r.errorf(where, "spec.provider.url is missing")
	} else {
		checkURL(r, where, "spec.provider.url", csv.Spec.Provider.URL)
	}
	checkInternalObjects(r, where, csv)
	checkImages(r, where, csv)
	checkUpgradeEdge(r, where, csv)
	checkNamespaceTemplate(r, where, csv)
}

// checkUpgradeEdge: the CSV says which installed versions it upgrades (decision 196): an olm.skipRange that is a
// semver range holding no version from this one on, or spec.replaces naming an earlier CSV of the package.
func checkUpgradeEdge(r *report, where string, csv *operatorsv1alpha1.ClusterServiceVersion) {
	skipRange, hasRange := csv.GetAnnotations()["olm.skipRange"]
	if !hasRange && csv.Spec.Replaces == "" {
		r.errorf(where, "no upgrade edge: neither metadata.annotations[olm.skipRange] nor spec.replaces")
	}
	if hasRange {
		inRange, err := semver.ParseRange(skipRange)
		if err != nil {
			r.errorf(where, "olm.skipRange %q is not a semver range: %v", skipRange, err)
		} else if inRange(csv.Spec.Version.Version) {
			r.errorf(where, "olm.skipRange %q holds the CSV's own version %s", skipRange, csv.Spec.Version.String())
		}
	}
	if csv.Spec.Replaces != "" && csv.Spec.Replaces == csv.Name {
		r.errorf(where, "spec.replaces names the CSV itself")
	}
}

// checkNamespaceTemplate: the namespace the console offers to create is a Namespace (decoded strictly), named as the
// suggested namespace, whose Pod Security level admits the agent (host paths, SYS_RAWIO: privileged).
func checkNamespaceTemplate(r *report, where string, csv *operatorsv1alpha1.ClusterServiceVersion) {
	const key = "operatorframework.io/suggested-namespace-template"
	text, ok := csv.GetAnnotations()[key]
	if !ok {
		r.errorf(where, "metadata.annotations[%q] is missing", key)
		return
	}
	var ns corev1.Namespace
	decoder := json.NewDecoder(strings.NewReader(text))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&ns); err != nil {
		r.errorf(where, "%s is not a Namespace: %v", key, err)
		return
	}
	if ns.APIVersion != "v1" || ns.Kind != "Namespace" {
		r.errorf(where, "%s is a %s %s, not a v1 Namespace", key, ns.APIVersion, ns.Kind)
	}
	if want := csv.GetAnnotations()["operatorframework.io/suggested-namespace"]; ns.Name != want {
		r.errorf(where, "%s names namespace %q, the suggested namespace is %q", key, ns.Name, want)
	}
	if level := ns.Labels["pod-security.kubernetes.io/enforce"]; level != "privileged" {
		r.errorf(where, "%s: label pod-security.kubernetes.io/enforce is %q, the agent needs privileged", key, level)
	}
}

func checkURL(r *report, where, field, value string) {
	u, err := url.Parse(value)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		r.errorf(where, "%s %q is not an https URL", field, value)
	}
}

// checkInternalObjects: the operators.operatorframework.io/internal-objects annotation must be a JSON list
// of owned CRD names (the console hides those kinds from the user).
func checkInternalObjects(r *report, where string, csv *operatorsv1alpha1.ClusterServiceVersion) {
	text, ok := csv.GetAnnotations()["operators.operatorframework.io/internal-objects"]
	if !ok {
		return
	}
	var names []string
	if err := json.Unmarshal([]byte(text), &names); err != nil {
		r.errorf(where, "internal-objects annotation is not a JSON list of strings: %v", err)
		return
	}
	for _, n := range names {
		if ownedCRD(csv, n) == nil {
			r.errorf(where, "internal-objects names %q, which is not an owned CRD", n)
		}
	}
}

func ownedCRD(csv *operatorsv1alpha1.ClusterServiceVersion, name string) *operatorsv1alpha1.CRDDescription {
	for i := range csv.Spec.CustomResourceDefinitions.Owned {
		if csv.Spec.CustomResourceDefinitions.Owned[i].Name == name {
			return &csv.Spec.CustomResourceDefinitions.Owned[i]
		}
	}
	return nil
}

// checkImages: containerImage is the operator's image, and relatedImages lists every image the operator
// runs or deploys (each container image, and each RELATED_IMAGE_* variable), so disconnected mirroring sees them.
func checkImages(r *report, where string, csv *operatorsv1alpha1.ClusterServiceVersion) {
	related := map[string]bool{}
	for _, ri := range csv.Spec.RelatedImages {
		related[ri.Image] = true
	}
	var operatorImages []string
	for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range d.Spec.Template.Spec.Containers {
			operatorImages = append(operatorImages, c.Image)
			if !related[c.Image] {
				r.errorf(where, "image %s of deployment %s is not in spec.relatedImages", c.Image, d.Name)
			}
			for _, env := range c.Env {
				if strings.HasPrefix(env.Name, "RELATED_IMAGE_") && !related[env.Value] {
					r.errorf(where, "%s=%s of deployment %s is not in spec.relatedImages", env.Name, env.Value, d.Name)
				}
			}
		}
	}
	if image := csv.GetAnnotations()["containerImage"]; image != "" && !contains(operatorImages, image) {
		r.errorf(where, "metadata.annotations[containerImage] %s is not the image of any deployment %v", image, operatorImages)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkDescriptors: every owned CRD that is not internal has spec and status descriptors, and every
// descriptor's path names a field of its CRD's schema (the console shows nothing for a wrong path).
func checkDescriptors(r *report, bundle *manifests.Bundle) {
	csv := bundle.CSV
	var internal []string
	_ = json.Unmarshal([]byte(csv.GetAnnotations()["operators.operatorframework.io/internal-objects"]), &internal)
	for _, owned := range csv.Spec.CustomResourceDefinitions.Owned {
		where := fmt.Sprintf("[joulie] %s owned CRD %s", csv.Name, owned.Name)
		if !contains(internal, owned.Name) && (len(owned.SpecDescriptors) == 0 || len(owned.StatusDescriptors) == 0) {
			r.errorf(where, "has no spec or no status descriptors (and is not listed as an internal object)")
		}
		schema := crdSchema(bundle, owned.Name, owned.Version)
		if schema == nil {
			continue // the bundle validator reports an owned CRD missing from the bundle
		}
		for _, d := range owned.SpecDescriptors {
			if !hasPath(schema, "spec", d.Path) {
				r.errorf(where, "spec descriptor %q names no field of spec", d.Path)
			}
		}
		for _, d := range owned.StatusDescriptors {
			if !hasPath(schema, "status", d.Path) {
				r.errorf(where, "status descriptor %q names no field of status", d.Path)
			}
		}
	}
}

func crdSchema(bundle *manifests.Bundle, name, version string) *apiextensionsv1.JSONSchemaProps {
	for _, c := range bundle.V1CRDs {
		if c.Name != name {
			continue
		}
		for _, v := range c.Spec.Versions {
			if v.Name == version && v.Schema != nil {
				return v.Schema.OpenAPIV3Schema
			}
		}
	}
	return nil
}

// hasPath resolves a descriptor path ("agent.nodeSelector", "conditions", "items[0].name") under the root
// property in the schema; array indexes and array levels step into the items' schema.
func hasPath(schema *apiextensionsv1.JSONSchemaProps, root, path string) bool {
	node, ok := schema.Properties[root]
	if !ok {
		return false
	}
	for _, segment := range strings.Split(path, ".") {
		field := segment
		if i := strings.Index(segment, "["); i >= 0 {
			field = segment[:i]
		}
		if node.Items != nil && node.Items.Schema != nil {
			node = *node.Items.Schema
		}
		next, ok := node.Properties[field]
		if !ok {
			return false
		}
		node = next
	}
	return true
}
