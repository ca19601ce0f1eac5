package backend

// openerCommand uses open(1).
func openerCommand(target string) []string { return []string{"open", target} }
