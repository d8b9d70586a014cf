package io.joulie.operator.install;

import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import io.quarkiverse.operatorsdk.annotations.SharedCSVMetadata;

/**
 * The OLM bundle's metadata, in one place for both controllers of the {@code Joulie} resource (the
 * installation and the monitoring controller name this bundle; the Operator SDK's generator requires a
 * single source when several reconcilers share a bundle).
 */
@CSVMetadata(bundleName = JoulieBundle.NAME, csvName = JoulieBundle.NAME + ".v0.1.0", displayName = "Joulie",
        description = "Joulie saves datacenter energy without breaking performance contracts: every minute the operator "
                + "decides which managed nodes run the performance power profile and which run eco, moves nodes between "
                + "them through a safe two-phase downgrade, and a node agent enforces the CPU power caps (RAPL through "
                + "powercap, DVFS fallback) and reports what happened.",
        keywords = {"energy", "power", "rapl", "hpc", "green computing", "node agent"},
        maturity = "alpha", minKubeVersion = "1.27.0",
        provider = @CSVMetadata.Provider(name = "Joulie"),
        icon = @CSVMetadata.Icon(fileName = "joulie-icon.svg", mediatype = "image/svg+xml"),
        installModes = {
                @CSVMetadata.InstallMode(type = "AllNamespaces", supported = true),
                @CSVMetadata.InstallMode(type = "OwnNamespace", supported = true),
                @CSVMetadata.InstallMode(type = "SingleNamespace", supported = false),
                @CSVMetadata.InstallMode(type = "MultiNamespace", supported = false)},
        annotations = @CSVMetadata.Annotations(capabilities = "Basic Install", categories = "Monitoring"))
public final class JoulieBundle implements SharedCSVMetadata {
    public static final String NAME = "joulie";
    // csvName carries the bundle version (quarkus.operator-sdk.bundle.version); GeneratedBundleIT checks they agree.

    private JoulieBundle() {
    }
}
