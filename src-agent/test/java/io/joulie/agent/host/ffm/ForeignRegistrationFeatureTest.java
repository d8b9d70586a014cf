package io.joulie.agent.host.ffm;

import io.joulie.agent.host.ffm.Downcalls.Downcall;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ForeignRegistrationFeatureTest {
    /** A downcall Libc binds but the Feature does not register would fail only in the native image, at run time. */
    @Test
    void theFeatureRegistersExactlyTheDowncallsLibcBinds() {
        assertThat(ForeignRegistrationFeature.registrations()).containsExactlyInAnyOrderElementsOf(Libc.bound());
        assertThat(Libc.bound()).extracting(Downcall::name).containsExactlyInAnyOrder("open", "pread", "pwrite", "ftruncate", "close");
    }
}
