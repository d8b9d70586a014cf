//go:build tools

// Pins the operator-registry release whose opm validates the file-based catalog in catalog/; built by build.sh.
package tools

import _ "github.com/operator-framework/operator-registry/cmd/opm"
