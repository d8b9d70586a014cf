package io.joulie.operator.cluster;

import io.joulie.operator.manifests.Manifests;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.assertj.core.api.Assertions.assertThat;

/** The Event catalogue in docs/metrics.md is the operator's: every reason, with its type. */
class EventReasonTest {

    @Test
    void theCatalogueListsEveryReasonWithItsType() throws IOException {
        String doc = Files.readString(Manifests.repository().resolve("docs/metrics.md"));

        for (EventReason r : EventReason.values()) {
            assertThat(doc).as("docs/metrics.md lists %s", r).contains("| `%s` | %s |".formatted(r.name(), r.type()));
        }
    }
}
