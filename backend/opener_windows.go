package backend

// openerCommand hands the target to the shell's protocol handler without a
// console window or cmd.exe quoting rules.
func openerCommand(target string) []string {
	return []string{"rundll32", "url.dll,FileProtocolHandler", target}
}
