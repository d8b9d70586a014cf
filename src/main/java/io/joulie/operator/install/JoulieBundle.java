package io.joulie.operator.install;

import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import io.quarkiverse.operatorsdk.annotations.SharedCSVMetadata;

/**
 * The OLM bundle's metadata, in one place for both controllers of the {@code Joulie} resource (the
 * installation and the monitoring controller name this bundle; the Operator SDK's generator requires a
 * single source when several reconcilers share a bundle).
 */
@CSVMetadata(bundleName = JoulieBundle.NAME, displayName = "Joulie",
        description = "Joulie saves datacenter energy without breaking performance contracts: every minute the operator "
                + "decides which managed nodes run the performance power profile and which run eco, moves nodes between "
                + "them through a safe two-phase downgrade, and a node agent enforces the CPU power caps (RAPL through "
                + "powercap, DVFS fallback) and reports what happened.",
        keywords = {"energy", "power", "rapl", "hpc", "green computing", "node agent"},
        maturity = "alpha", minKubeVersion = "1.32.0",
        provider = @CSVMetadata.Provider(name = "Joulie", url = JoulieBundle.HOME),
        maintainers = @CSVMetadata.Maintainer(name = "Joulie maintainers", email = "maintainers@joulie.io"),
        links = {@CSVMetadata.Link(name = "Source code and documentation", url = JoulieBundle.REPOSITORY),
                @CSVMetadata.Link(name = "Install guide", url = JoulieBundle.REPOSITORY + "/blob/main/docs/install.md")},
        icon = @CSVMetadata.Icon(fileName = "joulie-icon.svg", mediatype = "image/svg+xml"),
        installModes = {
                // Cluster-wide only: every Joulie kind is cluster-scoped and one installation plans every node
                // (docs/decisions.md, "OLM install mode and the agent ServiceAccount").
                @CSVMetadata.InstallMode(type = "AllNamespaces", supported = true),
                @CSVMetadata.InstallMode(type = "OwnNamespace", supported = false),
                @CSVMetadata.InstallMode(type = "SingleNamespace", supported = false),
                @CSVMetadata.InstallMode(type = "MultiNamespace", supported = false)},
        annotations = @CSVMetadata.Annotations(capabilities = "Basic Install", categories = "Monitoring",
                repository = JoulieBundle.REPOSITORY, others = {
                @CSVMetadata.Annotations.Annotation(name = "createdAt", value = JoulieBundle.CREATED_AT),
                @CSVMetadata.Annotations.Annotation(name = "support", value = "Joulie maintainers"),
                @CSVMetadata.Annotations.Annotation(name = "description",
                        value = "Plans per-node power profiles (performance or eco) and enforces the CPU and GPU caps with a node agent."),
                @CSVMetadata.Annotations.Annotation(name = "operatorframework.io/suggested-namespace", value = "joulie-system"),
                // OperatorHub's infrastructure features (decision 207): both images are relatedImages, by digest in a
                // release's bundle (hack/release/pin-bundle.sh), and nothing is fetched from outside the cluster; the
                // rest was not built for or not tested, so it says false.
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/disconnected", value = "true"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/fips-compliant", value = "false"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/proxy-aware", value = "false"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/tls-profiles", value = "false"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/token-auth-aws", value = "false"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/token-auth-azure", value = "false"),
                @CSVMetadata.Annotations.Annotation(name = "features.operators.openshift.io/token-auth-gcp", value = "false"),
                // Written by the operator and its agents, not by users: the console lists only Joulie.
                @CSVMetadata.Annotations.Annotation(name = "operators.operatorframework.io/internal-objects",
                        value = "[\"nodepowerprofiles.joulie.io\",\"telemetryprofiles.joulie.io\",\"nodehardwares.joulie.io\"]")}))
public final class JoulieBundle implements SharedCSVMetadata {
    public static final String NAME = "joulie";
    /** The project's home and source repository: the provider URL, links and {@code repository} of the CSV. */
    static final String HOME = "https://joulie.io";
    static final String REPOSITORY = "https://github.com/joulie-io/joulie";
    /**
     * The CSV's {@code createdAt}: the date this bundle version was cut, fixed so the drift check of
     * {@code bundle/} stays stable; set it together with {@code quarkus.operator-sdk.bundle.version} on a release.
     */
    static final String CREATED_AT = "2026-11-22T00:00:00Z";
    // The CSV's name, joulie.v<version>, is written by GeneratedBundleIT from quarkus.operator-sdk.bundle.version (the
    // release version, joulie.version in pom.xml): the version is in one place.

    private JoulieBundle() {
    }
}
