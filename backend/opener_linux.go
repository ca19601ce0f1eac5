package backend

// openerCommand uses xdg-open, the freedesktop way to open a URL or folder.
func openerCommand(target string) []string { return []string{"xdg-open", target} }
