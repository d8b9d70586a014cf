// Command olm-validate checks Joulie's install manifests with the operator-framework's own code and with
// Kubernetes' typed decoders:
//
//   - the OLM bundle directory is loaded by github.com/operator-framework/api's bundle loader (what
//     operator-sdk, opm and OLM use: it decodes the CSV into the typed ClusterServiceVersion) and checked by
//     the validators that `operator-sdk bundle validate --select-optional suite=operatorframework` runs
//     (see validators below), then by Joulie's own checks of what OperatorHub submissions require;
//   - every manifest of the bundle and of the plain-manifests directory, and every Deployment the CSV
//     embeds, is decoded strictly (unknown or duplicate fields and wrong types are errors) into its Go
//     type; custom resources are validated against the schema of their CRD as the API server does.
//
// Every error and warning is printed; the exit status is 1 when there is an error, 2 on wrong usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	bundleDir := flag.String("bundle", "", "OLM bundle directory (holding manifests/ and metadata/)")
	manifestsDir := flag.String("manifests", "", "plain install manifests directory (kubectl apply -f)")
	k8sVersion := flag.String("k8s-version", "", "Kubernetes version the bundle targets, for the deprecated-API check (optional)")
	flag.Parse()
	if *bundleDir == "" || *manifestsDir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: olm-validate -bundle <dir> -manifests <dir> [-k8s-version <x.y>]")
		os.Exit(2)
	}
	r := newReport(os.Stdout)
	run(r, *bundleDir, *manifestsDir, *k8sVersion)
	fmt.Fprintf(os.Stdout, "%d error(s), %d warning(s)\n", r.errors, r.warnings)
	if r.errors > 0 {
		os.Exit(1)
	}
}

// run performs every check and records the findings in r.
func run(r *report, bundleDir, manifestsDir, k8sVersion string) {
	plain := decodeDir(r, manifestsDir)
	checkCustomResources(r, plain)
	checkPlainCRDs(r, plain)
	checkBundle(r, bundleDir, plain, k8sVersion)
}

// report collects findings; each is printed at once, prefixed by its severity and where it comes from.
type report struct {
	out              io.Writer
	errors, warnings int
}

func newReport(out io.Writer) *report {
	return &report{out: out}
}

func (r *report) errorf(source, format string, args ...any) {
	r.errors++
	fmt.Fprintf(r.out, "ERROR   %s: %s\n", source, fmt.Sprintf(format, args...))
}

func (r *report) warnf(source, format string, args ...any) {
	r.warnings++
	fmt.Fprintf(r.out, "WARNING %s: %s\n", source, fmt.Sprintf(format, args...))
}
