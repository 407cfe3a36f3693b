// Package ca owns adkproxy's local certificate authority: the per-user
// ECDSA P-256 key and certificate that the forward proxy signs its
// intercepting leaf certificates with, where they live on disk, how they
// are created (atomically, never replacing a broken one), the short-lived
// leaves minted per host, and the trust bundle (system roots plus the CA)
// written for a wrapped command.
//
// Files, in Dir (see DefaultDir):
//
//	ca.pem      the CA certificate (0644): what clients trust
//	ca-key.pem  its private key (0600): never leaves the machine
//
// A missing, unreadable or malformed file is an error wrapping ErrBroken
// and naming the file; nothing here ever regenerates a CA silently.
package ca
