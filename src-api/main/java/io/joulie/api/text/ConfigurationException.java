package io.joulie.api.text;

/** Configuration that cannot be used; the message lists every problem, each naming where the value was set. */
public class ConfigurationException extends RuntimeException {
    public ConfigurationException(String message) {
        super(message);
    }
}
