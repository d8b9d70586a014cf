package io.joulie.agent.config;

import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/** Validates the configuration once at start-up; a bad value fails start-up with a message naming the variable. */
@ApplicationScoped
public class AgentSettingsProducer {
    private static final Logger LOG = Logger.getLogger(AgentSettingsProducer.class);

    @Produces
    @Startup
    @Singleton
    AgentSettings settings(AgentConfig config) {
        AgentSettings s = AgentSettingsParser.parse(config);
        LOG.infof("Joulie agent settings: %s", s);
        return s;
    }
}
