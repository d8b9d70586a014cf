package io.joulie.operator.runtime;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;

/** The wall clock the operator plans with (a bean so that tests and the simulator can reason about it). */
public class ClockProducer {
    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
