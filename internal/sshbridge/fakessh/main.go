// Command fakessh is the ssh.exe a test gives the Windows build under
// Wine (built with GOOS=windows, see sshbridge.BuildClient): it runs this
// machine's ssh through the bridge named by sshbridge.EnvAddr, with its
// own argv, stdin, stdout and stderr, and exits with ssh's status (255
// when the bridge cannot tell it, as ssh does for its own failures).
package main

import (
	"fmt"
	"os"

	"hermes-desktop/internal/sshbridge"
)

func main() {
	cl := sshbridge.Client{Env: os.Getenv(sshbridge.EnvAddr), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	code, err := cl.Run(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakessh: %v\n", err)
	}
	os.Exit(code)
}
