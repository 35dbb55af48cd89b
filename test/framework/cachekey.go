package framework

import "os"

// SourceTreeEnv names the hash of the repository's files outside the test module (the operator's
// code, config/, bundle/, docs/) that `make test` passes to the tests.
const SourceTreeEnv = "SOURCE_TREE_ID"

// KeyCacheOnSources makes go test's cached result of the calling test depend on the repository's
// files outside the test module. go test keys a cached result on the test binary, the environment
// variables the test read and the files it opened, but only files inside the test's own module:
// a suite that builds the operator binary, or reads the bundle, a sample or a doc, would otherwise
// pass from its cache after a change to them. Reading the variable records it; `make test` sets it.
func KeyCacheOnSources() {
	_ = os.Getenv(SourceTreeEnv)
}
