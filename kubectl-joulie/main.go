// kubectl-joulie is a kubectl plugin for Joulie (docs/troubleshooting.md): "kubectl joulie status" shows, per
// managed node, what its NodePowerProfile holds: the profile and state the operator planned, since when and why, the
// CPU and GPU caps it asks for and those the agent applied, the agent's results and whether it answered the current
// generation, the operator's verdict and the performance-only pods it counted; --watch redraws it on every change.
// It reads the Joulie resource and the NodePowerProfiles, nothing else.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	joulies           = schema.GroupVersionResource{Group: "joulie.io", Version: "v1alpha1", Resource: "joulies"}
	nodePowerProfiles = schema.GroupVersionResource{Group: "joulie.io", Version: "v1alpha1", Resource: "nodepowerprofiles"}
)

const usage = `Usage: kubectl joulie status [--watch] [--node NAME] [--kubeconfig FILE] [--context NAME]
       kubectl joulie must-gather [--namespace NS] [--dest DIR] [--since DURATION]

Per managed node, from its NodePowerProfile: the profile and state the operator planned, since when, the CPU and GPU
caps it asks for (CAP, GPU CAP: watts or a percent of the hardware's maximum), the watts the agent applied (APPLIED,
GPU APPLIED per board) and its results (RESULT), whether the agent answered the current generation (ANSWERED), the
operator's verdict on that answer (AGENT), the performance-only pods the operator counted (PERF PODS) and why the
node is where it is; first a line on the Joulie resource (conditions, agents, policy).
--watch redraws on every change (Ctrl-C ends).
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// executable is the path of this binary (a variable for the tests).
var executable = os.Executable

// mustGather runs the must-gather script installed beside this binary (kubectl-joulie-must_gather). kubectl runs the
// script itself for "kubectl joulie must-gather" when it is on the PATH; a krew install puts only this binary there
// (a link into the plugin's directory, which also holds the script), so this binary hands the command on.
func mustGather(args []string, out io.Writer) error {
	self, err := executable()
	if err != nil {
		return err
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	script := filepath.Join(filepath.Dir(self), "kubectl-joulie-must_gather")
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("must-gather: %s not found beside %s (install it from kubectl-joulie/): %w", filepath.Base(script), self, err)
	}
	cmd := exec.Command(script, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, os.Stderr
	return cmd.Run()
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(out, usage)
		if len(args) == 0 {
			return errors.New("no command")
		}
		return nil
	}
	if args[0] == "must-gather" {
		return mustGather(args[1:], out)
	}
	if args[0] != "status" {
		fmt.Fprint(out, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(out)
	watch := fs.Bool("watch", false, "redraw on every change")
	fs.BoolVar(watch, "w", false, "redraw on every change")
	node := fs.String("node", "", "only this node")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
	kubeContext := fs.String("context", "", "kubeconfig context")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = *kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: *kubeContext}).ClientConfig()
	if err != nil {
		return fmt.Errorf("no cluster to talk to: %w", err)
	}
	config.UserAgent = "kubectl-joulie"
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	if *watch {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return watchStatus(ctx, dyn, out, *node)
	}
	s, err := list(context.Background(), dyn)
	if err != nil {
		return err
	}
	render(out, s, time.Now(), *node)
	return nil
}

// list reads everything the status needs once.
func list(ctx context.Context, dyn dynamic.Interface) (snapshot, error) {
	var s snapshot
	j, err := dyn.Resource(joulies).Get(ctx, "joulie", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return s, explain(err, "the Joulie resource")
	default:
		s.joulie = j
	}
	npp, err := dyn.Resource(nodePowerProfiles).List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, explain(err, "NodePowerProfiles")
	}
	s.profiles = npp.Items
	return s, nil
}

func explain(err error, what string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("cannot list %s: %w (is Joulie installed? its CRDs are missing)", what, err)
	}
	return fmt.Errorf("cannot read %s: %w", what, err)
}

// watchStatus keeps informers on the same objects and redraws when what it shows changes: on a terminal in place,
// otherwise as a new block under a line with the time.
func watchStatus(ctx context.Context, dyn dynamic.Interface, out io.Writer, node string) error {
	dynFactory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	changed := make(chan struct{}, 1)
	notify := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signalChange(changed) },
		UpdateFunc: func(any, any) { signalChange(changed) },
		DeleteFunc: func(any) { signalChange(changed) },
	}
	stores := map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	for _, gvr := range []schema.GroupVersionResource{joulies, nodePowerProfiles} {
		inf := dynFactory.ForResource(gvr).Informer()
		if _, err := inf.AddEventHandler(notify); err != nil {
			return err
		}
		stores[gvr] = inf
	}
	dynFactory.Start(ctx.Done())
	for gvr, ok := range dynFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("watching %s did not start (is Joulie installed?)", gvr.Resource)
		}
	}
	terminal := isTerminal(out)
	var last []byte
	tick := time.NewTicker(30 * time.Second) // the SINCE column moves on
	defer tick.Stop()
	for {
		s := fromStores(stores)
		var buf bytes.Buffer
		render(&buf, s, time.Now(), node)
		if !bytes.Equal(buf.Bytes(), last) {
			if terminal {
				fmt.Fprint(out, "\033[H\033[2J")
			} else {
				fmt.Fprintf(out, "--- %s\n", time.Now().UTC().Format(time.RFC3339))
			}
			out.Write(buf.Bytes())
			last = buf.Bytes()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			time.Sleep(200 * time.Millisecond) // let a burst of changes land before drawing
		case <-tick.C:
		}
	}
}

func signalChange(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func fromStores(stores map[schema.GroupVersionResource]cache.SharedIndexInformer) snapshot {
	var s snapshot
	for _, o := range stores[joulies].GetStore().List() {
		if u, ok := o.(*unstructured.Unstructured); ok && u.GetName() == "joulie" {
			s.joulie = u
		}
	}
	for _, o := range stores[nodePowerProfiles].GetStore().List() {
		s.profiles = append(s.profiles, *o.(*unstructured.Unstructured))
	}
	return s
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
