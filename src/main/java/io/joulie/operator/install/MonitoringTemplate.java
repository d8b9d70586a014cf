package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.openshift.api.model.monitoring.v1.EndpointBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpec;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpecBuilder;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitorBuilder;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.config.OperatorConfig;
import io.joulie.operator.config.OperatorNamespace;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The desired monitoring objects of a {@code Joulie} resource, in the operator's namespace: the Grafana
 * dashboard ConfigMap (labelled for the Grafana sidecar), ServiceMonitors for the operator's and the
 * agents' metrics Services, and a PrometheusRule with Joulie's alerts. The dashboard and the alerts are
 * the files under {@code monitoring/} on the class path (src/main/resources/monitoring).
 */
@ApplicationScoped
public class MonitoringTemplate {
    public static final String DASHBOARD = "joulie-dashboard";
    public static final String RULES = "joulie";
    public static final String DASHBOARD_FILE = "monitoring/joulie-dashboard.json";
    public static final String ALERTS_FILE = "monitoring/joulie-alerts.yaml";
    static final ResourceDefinitionContext SERVICE_MONITOR = new ResourceDefinitionContext.Builder()
            .withGroup("monitoring.coreos.com").withVersion("v1").withKind("ServiceMonitor").withPlural("servicemonitors")
            .withNamespaced(true).build();
    static final ResourceDefinitionContext PROMETHEUS_RULE = new ResourceDefinitionContext.Builder()
            .withGroup("monitoring.coreos.com").withVersion("v1").withKind("PrometheusRule").withPlural("prometheusrules")
            .withNamespaced(true).build();

    private final String namespace;
    private final String dashboard;
    private final PrometheusRuleSpec alerts;

    public MonitoringTemplate(KubernetesClient client, OperatorConfig config) {
        this.namespace = OperatorNamespace.of(client, config);
        this.dashboard = read(DASHBOARD_FILE);
        Map<?, ?> rules = client.getKubernetesSerialization().unmarshal(read(ALERTS_FILE), Map.class);
        if (!(rules.get("groups") instanceof List<?>)) {
            throw new IllegalStateException(ALERTS_FILE + " has no 'groups' list");
        }
        this.alerts = client.getKubernetesSerialization().convertValue(rules, PrometheusRuleSpec.class);
    }

    static String read(String resource) {
        try (InputStream in = MonitoringTemplate.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JoulieSpec.Monitoring monitoring(Joulie j) {
        JoulieSpec.Monitoring m = j.getSpec() == null ? null : j.getSpec().monitoring();
        return m != null ? m : new JoulieSpec.Monitoring(null, null, null, null);
    }

    private static Map<String, String> labels(String name, Joulie j) {
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> extra = monitoring(j).labels();
        if (extra != null) {
            labels.putAll(extra);
        }
        labels.put("app.kubernetes.io/name", name);
        labels.put("app.kubernetes.io/part-of", "joulie");
        labels.put("app.kubernetes.io/managed-by", "joulie-operator");
        return labels;
    }

    private ObjectMeta meta(String name, Map<String, String> labels) {
        return new ObjectMetaBuilder().withName(name).withNamespace(namespace).withLabels(labels).build();
    }

    public String namespace() {
        return namespace;
    }

    /** The dashboard ConfigMap; {@code grafana_dashboard: "1"} is what the Grafana sidecar looks for. */
    public ConfigMap dashboard(Joulie j) {
        Map<String, String> labels = labels(DASHBOARD, j);
        labels.put("grafana_dashboard", "1");
        return new ConfigMapBuilder().withMetadata(new ObjectMetaBuilder().withName(DASHBOARD).withNamespace(namespace)
                        .withLabels(labels).build())
                .withData(Map.of("joulie.json", dashboard)).build();
    }

    /**
     * The ServiceMonitor of one metrics Service: the operator's ({@link AgentTemplate#OPERATOR_METRICS}) or the agents'.
     * The agents' {@code node} label is the node the scraped pod runs on, as Kubernetes service discovery says, not
     * what the agent writes ({@code honorLabels: false}: an agent's own {@code node} becomes {@code exported_node}), so
     * that a compromised agent cannot report power or temperature for another node to the power-budget and hotspot rules.
     */
    public ServiceMonitor serviceMonitor(Joulie j, String service) {
        EndpointBuilder endpoint = new EndpointBuilder().withPort("metrics").withPath("/q/metrics").withInterval("30s");
        if (AgentTemplate.NAME.equals(service)) {
            endpoint.withHonorLabels(false).addNewRelabeling().withAction("replace")
                    .withSourceLabels(NODE_OF_TARGET).withTargetLabel(NODE_LABEL).endRelabeling();
        }
        return new ServiceMonitorBuilder().withMetadata(meta(service, labels(service, j)))
                .withNewSpec()
                .withNewSelector().withMatchLabels(Map.of("app.kubernetes.io/name", service, "app.kubernetes.io/part-of", "joulie"))
                .endSelector()
                .withNewNamespaceSelector().withMatchNames(namespace).endNamespaceSelector()
                .withEndpoints(endpoint.build())
                .endSpec().build();
    }

    /** The Prometheus label the agents' per-node metrics carry, which docs/policies.md's queries select by. */
    public static final String NODE_LABEL = "node";
    /** Kubernetes service discovery's meta label: the node of the scraped pod. */
    static final String NODE_OF_TARGET = "__meta_kubernetes_pod_node_name";

    /** The PrometheusRule with the alerts of monitoring/joulie-alerts.yaml. */
    public PrometheusRule prometheusRule(Joulie j) {
        return new PrometheusRuleBuilder().withMetadata(meta(RULES, labels(RULES, j))).withSpec(new PrometheusRuleSpecBuilder(alerts).build()).build();
    }
}
