// The 'adkproxy ca' command: create the local CA and show where it
// is or what it is, so users can trust it outside a wrapped command.

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/urfave/cli/v2"
)

const caHelp = `The local CA signs the certificates adkproxy presents for HTTPS it intercepts as a forward
proxy (HTTPS_PROXY). It is an ECDSA P-256 key (ca-key.pem, mode 0600) and certificate (ca.pem),
made once per user in --ca-dir: by default $XDG_DATA_HOME/adkproxy, else ~/.local/share/adkproxy
(on macOS too), on Windows %LOCALAPPDATA%\adkproxy. 'record' and 'replay' create it on first use.
Leaf certificates are minted per host when first needed, valid for 24 hours, and never written.
A CA file that is missing, unreadable or malformed is an error (exit 65) naming the file: it is
never replaced silently, since clients trust the old certificate. To start over, remove both
files and run 'adkproxy ca init'.`

const caExitHelp = `EXIT STATUS:
   0    success
   64   usage error
   65   there is no CA (path, show), or a CA file is missing, unreadable or malformed
   73   the CA could not be written`

func caDirFlag() cli.Flag {
	return stringFlag("ca-dir", "", "`DIR` holding the local CA (default $XDG_DATA_HOME/adkproxy, else ~/.local/share/adkproxy)")
}

func caCommand() *cli.Command {
	sub := func(name, usage string, action func(*cli.Context, string) error) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, Flags: []cli.Flag{caDirFlag()},
			Action: func(c *cli.Context) error {
				if c.Args().Present() {
					return usageErrorf("ca %s takes no arguments, got %q", name, c.Args().First())
				}
				dir, err := caDir(c)
				if err != nil {
					return err
				}
				return action(c, dir)
			},
			OnUsageError: commandUsageError,
		}
	}
	return &cli.Command{
		Name:        "ca",
		Usage:       "create and show the local CA used to intercept HTTPS",
		Description: caHelp + "\n\n" + caExitHelp,
		Subcommands: []*cli.Command{
			sub("init", "create the CA if there is none and print its certificate's path", func(c *cli.Context, dir string) error {
				a, err := ca.Load(dir)
				if errors.Is(err, ca.ErrNotFound) {
					if a, err = ca.Create(dir); err == nil {
						fmt.Fprintf(c.App.ErrWriter, "adkproxy: created a local CA in %s\n", dir)
					}
				} else if err == nil {
					fmt.Fprintf(c.App.ErrWriter, "adkproxy: a CA already exists in %s; left as it is\n", dir)
				}
				if err != nil {
					return caError(err)
				}
				fmt.Fprintln(c.App.Writer, a.CertPath)
				return nil
			}),
			sub("path", "print the path of the CA certificate (ca.pem)", printCA(func(w io.Writer, a *ca.Authority) {
				fmt.Fprintln(w, a.CertPath)
			})),
			sub("show", "print the CA certificate as PEM", printCA(func(w io.Writer, a *ca.Authority) { w.Write(a.PEM) })),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usageErrorf("unknown ca command %q (want init, path or show)", c.Args().First())
			}
			return usageErrorf("ca needs a command: init, path or show (see 'adkproxy ca --help')")
		},
		OnUsageError: commandUsageError,
	}
}

// printCA loads the CA, which must exist, and prints something about it.
func printCA(print func(io.Writer, *ca.Authority)) func(*cli.Context, string) error {
	return func(c *cli.Context, dir string) error {
		a, err := ca.Load(dir)
		if err != nil {
			return caError(err)
		}
		print(c.App.Writer, a)
		return nil
	}
}

// caDir is --ca-dir (or ADKPROXY_CA_DIR), else the per-user default.
func caDir(c *cli.Context) (string, error) {
	if d := c.String("ca-dir"); d != "" {
		return d, nil
	}
	d, err := ca.DefaultDir()
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return d, nil
}

// caError gives CA problems their exit status: 65 for a CA that is
// missing or broken (the message names the file), 73 for one that could
// not be written.
func caError(err error) error {
	if errors.Is(err, ca.ErrBroken) || errors.Is(err, ca.ErrNotFound) {
		return withCode(exitDataErr, err)
	}
	return withCode(exitCantWrite, err)
}
