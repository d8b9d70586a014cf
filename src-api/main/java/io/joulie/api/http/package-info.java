/** Outbound HTTP both applications share: every exchange bounded in time and size (the agent's endpoints, Prometheus). */
package io.joulie.api.http;
