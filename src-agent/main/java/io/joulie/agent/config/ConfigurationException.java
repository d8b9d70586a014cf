package io.joulie.agent.config;

/** A configuration value that cannot be used; the message names the variable and the property. */
public class ConfigurationException extends RuntimeException {
    public ConfigurationException(String message) {
        super(message);
    }
}
