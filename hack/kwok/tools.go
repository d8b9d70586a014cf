//go:build tools

// Package tools records the kwok command as a dependency of this module so that go.sum pins it.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
