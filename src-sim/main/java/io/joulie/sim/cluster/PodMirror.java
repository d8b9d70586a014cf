package io.joulie.sim.cluster;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.planner.EcoPlacement;
import io.joulie.sim.JobSpec;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Every job as a Pod in namespace {@value TwinObjects#NAMESPACE}, written on one writer thread so the simulation
 * never waits for the API server: created (pending) when the job arrives, bound when the twin's scheduler places it,
 * deleted when it finishes. The operator counts them through its informers exactly as on a real cluster.
 */
final class PodMirror implements AutoCloseable {
    private final KubernetesClient client;
    /** Whether the server binds Pods through the Binding subresource (a real one does, the embedded mock does not). */
    private final boolean binds;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "sim-api-writer"));

    PodMirror(KubernetesClient client, boolean binds) {
        this.client = client;
        this.binds = binds;
    }

    void queued(JobSpec job) {
        PodBuilder b = new PodBuilder().withMetadata(JobSpec.metadata(job.declaresEco())).editMetadata()
                .withNamespace(TwinObjects.NAMESPACE).withName(name(job))
                .addToLabels(TwinObjects.MANAGED_BY, "joulie-sim").addToLabels("joulie.io/sim-class", job.className())
                .endMetadata().withNewSpec()
                // not the cluster's scheduler: the twin's places the job (and binds it, see bind)
                .withSchedulerName("joulie-sim")
                .withNodeSelector(job.profile() == null ? Map.of() : Map.of(JoulieApi.POWER_PROFILE_LABEL, job.profile()))
                .addNewContainer().withName("job").withImage("joulie-sim/job").withNewResources()
                .addToRequests("cpu", new Quantity(Integer.toString(job.cores()))).endResources().endContainer()
                .endSpec();
        if (job.usesGpus()) {
            // an extended resource is requested through its limit (the request defaults to it)
            Quantity boards = new Quantity(Integer.toString(job.gpus()));
            b.editSpec().editFirstContainer().editResources().addToLimits(TwinObjects.GPU_RESOURCE, boards)
                    .addToRequests(TwinObjects.GPU_RESOURCE, boards).endResources().endContainer()
                    .addNewToleration().withKey(TwinObjects.GPU_RESOURCE).withOperator("Exists").withEffect("NoSchedule").endToleration()
                    .endSpec();
        }
        // what a job that declares eco asks of a scheduler, as the operator's webhook leaves it: eco nodes preferred
        Pod pod = EcoPlacement.apply(b.build());
        writer.execute(() -> client.resource(pod).create());
    }

    void started(JobSpec job, String node) {
        writer.execute(() -> bind(name(job), node));
    }

    void finished(JobSpec job) {
        writer.execute(() -> client.pods().inNamespace(TwinObjects.NAMESPACE).withName(name(job)).withGracePeriod(0).delete());
    }

    /**
     * Binds a Pod to a node as a scheduler does: through the Binding subresource, which a real API server honours (it
     * refuses an update of spec.nodeName). Where the server does not bind (the embedded mock), or left the Pod
     * unbound, spec.nodeName is set directly.
     */
    private void bind(String pod, String node) {
        var op = client.pods().inNamespace(TwinObjects.NAMESPACE).withName(pod);
        if (binds) {
            client.bindings().inNamespace(TwinObjects.NAMESPACE).resource(new BindingBuilder()
                    .withNewMetadata().withName(pod).endMetadata()
                    .withNewTarget().withApiVersion("v1").withKind("Node").withName(node).endTarget().build()).create();
            Pod bound = op.get();
            if (bound != null && node.equals(bound.getSpec().getNodeName())) {
                return;
            }
        }
        op.edit(p -> new PodBuilder(p).editSpec().withNodeName(node).endSpec().build());
    }

    private static String name(JobSpec job) {
        return job.podName().substring(TwinObjects.NAMESPACE.length() + 1);
    }

    /** Waits up to 10 s for the writes in flight. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
