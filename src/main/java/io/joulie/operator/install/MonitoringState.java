package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Condition;
import io.joulie.operator.runtime.Published;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Objects;
import java.util.Optional;

/**
 * The monitoring controller's outcome, handed to the {@code Joulie} reconciler, which owns the status: one
 * writer per resource, so the two controllers never race on the conditions list.
 */
@ApplicationScoped
public class MonitoringState {
    private final Published<Condition> condition = new Published<>((a, b) -> Objects.equals(a.getStatus(), b.getStatus())
            && Objects.equals(a.getReason(), b.getReason()) && Objects.equals(a.getMessage(), b.getMessage()));

    void publish(Condition c) {
        condition.publish(c);
    }

    /** The MonitoringReady condition, once the monitoring controller has run. */
    public Optional<Condition> condition() {
        return condition.latest();
    }

    public void onChange(Runnable listener) {
        condition.onChange(listener);
    }
}
