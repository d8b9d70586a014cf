package io.joulie.operator.runtime;

import org.junit.jupiter.api.Test;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class PublishedTest {
    @Test
    void listenersHearOnlyOfChanges() {
        Published<String> p = new Published<>(Objects::equals);
        AtomicInteger heard = new AtomicInteger();
        p.onChange(heard::incrementAndGet);
        assertThat(p.latest()).isEmpty();

        p.publish("a");
        p.publish("a");
        assertThat(heard).hasValue(1);
        p.publish("b");
        assertThat(heard).hasValue(2);
        assertThat(p.latest()).contains("b");
    }

    @Test
    void sameDecidesWhatCountsAsAChange() {
        Published<String> p = new Published<>(String::equalsIgnoreCase);
        AtomicInteger heard = new AtomicInteger();
        p.onChange(heard::incrementAndGet);
        p.publish("Ready");
        p.publish("READY");
        assertThat(heard).hasValue(1);
        assertThat(p.latest()).contains("Ready"); // an equivalent value does not replace the published one
    }
}
