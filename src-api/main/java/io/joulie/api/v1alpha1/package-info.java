/**
 * The {@code joulie.io/v1alpha1} API: the custom resources shared by the Joulie operator and the node
 * agent. The CRD YAML under {@code kubernetes/} is generated from these classes; descriptions here
 * become {@code kubectl explain} text.
 */
package io.joulie.api.v1alpha1;
