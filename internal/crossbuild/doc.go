// Package crossbuild holds the test that tabwright builds and vets for
// every target it is released for, from whichever machine runs make test:
// what differs per OS sits behind build tags, and nothing else would see
// a file that no longer compiles for an OS the tests do not run on.
package crossbuild
