; Hermes Desktop's per-user Windows installer, built on Linux by
; scripts/package.sh with Debian's makensis (`make package`).
;
; It needs no administrator: it installs into
; %LOCALAPPDATA%\Programs\Hermes Desktop, adds a Start-menu shortcut and an
; entry in the user's "Installed apps", and writes `install-type` (a line
; "nsis-user") next to the executable, which tells the app that it manages
; this install itself and may replace its own executable. Installing again
; upgrades in place. Silent: setup.exe /S [/D=DIR], uninstall.exe /S.
;
; Before it replaces or removes the files, it asks a running app to stop
; (`hermes-desktop.exe stop`, which returns once every backend is gone) and
; waits until the executable is no longer in use.
;
; The window needs the Microsoft Edge WebView2 Runtime. It is looked up the
; way Wails' own NSIS template does (the EdgeUpdate client key, machine-wide
; or per-user); if it is missing, the bootstrapper given at build time
; (WEBVIEW2_BOOTSTRAPPER) is run, as Wails does, and without one the
; installer offers to open Microsoft's download page.
;
; Defines, from scripts/package.sh:
;   VERSION        the package version (scripts/pkg-version.sh)
;   VI_VERSION     the same as four numbers, for the file's version resource
;   EXE            the Windows desktop build
;   LICENSE_FILE   LICENSE
;   NOTICES        the licenses of the Go modules linked into EXE
;   CORES          the remote cores (scripts/remote-cores.sh): installed in
;                  cores\ beside the exe, where backend/remotecore finds them
;   ICON           build/windows/icon.ico
;   OUTFILE        where to write the installer
;   WEBVIEW2_BOOTSTRAPPER  optional: MicrosoftEdgeWebview2Setup.exe to embed

; amd64: the app is 64-bit only, and a 32-bit installer cannot run where
; Windows has no WOW64 (nor under wine64).
Target amd64-unicode
SetCompressor /SOLID lzma
ManifestDPIAware true
RequestExecutionLevel user

!define PRODUCT "Hermes Desktop"
!define APP_EXE "hermes-desktop.exe"
!define PUBLISHER "The hermes-desktop authors"
; The app's per-user start-at-login value (app/desktop/autostart_windows.go).
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define RUN_VALUE "hermes-desktop"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\hermes-desktop"
; The WebView2 Runtime's EdgeUpdate client id (Microsoft's WebView2
; distribution guide, "Detect if a WebView2 Runtime is already installed").
!define WEBVIEW2_KEY "Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"
!define WEBVIEW2_PAGE "https://developer.microsoft.com/microsoft-edge/webview2/"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"
!include "WinVer.nsh"
!include "FileFunc.nsh"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${PRODUCT}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
ShowInstDetails show
ShowUninstDetails show

VIProductVersion "${VI_VERSION}"
VIFileVersion "${VI_VERSION}"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "Copyright (c) ${PUBLISHER}"
VIAddVersionKey "FileDescription" "${PRODUCT} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${PRODUCT}"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; StopApp asks a running app to stop, then waits (up to 30 s, then asks the
; user) until its executable can be opened for writing: Windows refuses that
; while the image is running, so afterwards it can be replaced or deleted.
!macro DEFINE_STOP_APP UN
Function ${UN}StopApp
	IfFileExists "$INSTDIR\${APP_EXE}" 0 done
	DetailPrint "Asking a running ${PRODUCT} to stop..."
	; Exit 0: stopped; 3: nothing was running. Either way, wait for the file.
	ExecWait '"$INSTDIR\${APP_EXE}" stop --timeout 60s' $0
	StrCpy $1 0
	wait:
		ClearErrors
		FileOpen $2 "$INSTDIR\${APP_EXE}" a
		IfErrors 0 free
		IntOp $1 $1 + 1
		IntCmp $1 60 busy
		Sleep 500
		Goto wait
	busy:
		MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION \
			"${PRODUCT} is still running. Quit it (tray icon > Quit), then choose Retry." \
			/SD IDCANCEL IDRETRY retry
		Abort "${PRODUCT} is still running"
	retry:
		StrCpy $1 0
		Goto wait
	free:
		FileClose $2
	done:
FunctionEnd
!macroend
!insertmacro DEFINE_STOP_APP ""
!insertmacro DEFINE_STOP_APP "un."

; REMOVE_MATCHING removes every file or folder of $INSTDIR matching PATTERN
; (names the self-update makes, and only those).
!macro REMOVE_MATCHING PATTERN
	FindFirst $0 $1 "$INSTDIR\${PATTERN}"
	${DoWhile} $1 != ""
		RMDir /r "$INSTDIR\$1"
		Delete "$INSTDIR\$1"
		FindNext $0 $1
	${Loop}
	FindClose $0
!macroend

; ReadWebView2Version leaves the installed runtime's version in $0, or "".
Function ReadWebView2Version
	SetRegView 64
	ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\${WEBVIEW2_KEY}" "pv"
	${If} $0 == ""
	${OrIf} $0 == "0.0.0.0"
		ReadRegStr $0 HKLM "SOFTWARE\${WEBVIEW2_KEY}" "pv"
	${EndIf}
	${If} $0 == ""
	${OrIf} $0 == "0.0.0.0"
		ReadRegStr $0 HKCU "Software\${WEBVIEW2_KEY}" "pv"
	${EndIf}
	${If} $0 == "0.0.0.0"
		StrCpy $0 ""
	${EndIf}
	SetRegView default
FunctionEnd

Function EnsureWebView2
	Call ReadWebView2Version
	${If} $0 != ""
		DetailPrint "WebView2 Runtime $0 found"
		Return
	${EndIf}
!ifdef WEBVIEW2_BOOTSTRAPPER
	DetailPrint "Installing the WebView2 Runtime..."
	InitPluginsDir
	File "/oname=$PLUGINSDIR\MicrosoftEdgeWebview2Setup.exe" "${WEBVIEW2_BOOTSTRAPPER}"
	ExecWait '"$PLUGINSDIR\MicrosoftEdgeWebview2Setup.exe" /silent /install' $1
	DetailPrint "WebView2 bootstrapper exited with $1"
!else
	DetailPrint "The Microsoft Edge WebView2 Runtime is not installed"
	MessageBox MB_YESNO|MB_ICONINFORMATION \
		"${PRODUCT} shows its window with the Microsoft Edge WebView2 Runtime, which is not installed.$\r$\n$\r$\nOpen Microsoft's download page now? Install the Evergreen Runtime from there, then start ${PRODUCT}." \
		/SD IDNO IDNO done
	ExecShell "open" "${WEBVIEW2_PAGE}"
	done:
!endif
FunctionEnd

Function .onInit
	SetShellVarContext current
	${IfNot} ${RunningX64}
	${OrIfNot} ${AtLeastWin10}
		MessageBox MB_OK|MB_ICONSTOP "${PRODUCT} needs 64-bit Windows 10 or later." /SD IDOK
		SetErrorLevel 64
		Quit
	${EndIf}
FunctionEnd

Function un.onInit
	SetShellVarContext current
FunctionEnd

Section "Install"
	Call StopApp
	Call EnsureWebView2
	SetOutPath "$INSTDIR"
	File "/oname=${APP_EXE}" "${EXE}"
	File "/oname=LICENSE.txt" "${LICENSE_FILE}"
	File "/oname=THIRD_PARTY_LICENSES.txt" "${NOTICES}"
	FileOpen $0 "$INSTDIR\install-type" w
	FileWrite $0 "nsis-user$\n"
	FileClose $0
	; The remote cores: the files of this version replace an earlier one's
	; (the names are the same for every version; VERSION says which).
	SetOutPath "$INSTDIR\cores"
	File "${CORES}/hermes-desktop-core-*.gz"
	File "${CORES}/SHA256SUMS"
	File "${CORES}/VERSION"
	SetOutPath "$INSTDIR"
	WriteUninstaller "$INSTDIR\uninstall.exe"
	CreateShortcut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\${APP_EXE}" "" "$INSTDIR\${APP_EXE}" 0

	WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${PRODUCT}"
	WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
	WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${APP_EXE}"
	WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
	WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
	WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
	WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
	WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
	WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
	${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
	WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" $0
SectionEnd

; The uninstaller removes what the installer wrote, by name (never the
; folder's other contents), what the app's self-update keeps beside it (the
; previous version in hermes-desktop.exe.old\, an update's journal, what
; an interrupted one left: backend/update), and the app's start-at-login
; value only if it starts this copy. cores\ is the app's whole (an update
; replaces it whole). The app's state (%USERPROFILE%\.hermes) and the
; window's WebView2 data (%APPDATA%\hermes-desktop.exe) stay.
Section "Uninstall"
	Call un.StopApp
	Delete "$INSTDIR\${APP_EXE}"
	Delete "$INSTDIR\LICENSE.txt"
	Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
	Delete "$INSTDIR\install-type"
	RMDir /r "$INSTDIR\cores"
	RMDir /r "$INSTDIR\${APP_EXE}.old"
	Delete "$INSTDIR\.update-journal"
	!insertmacro REMOVE_MATCHING ".${APP_EXE}.update-*"
	!insertmacro REMOVE_MATCHING "${APP_EXE}.failed-*"
	!insertmacro REMOVE_MATCHING "${APP_EXE}.old.del-*"
	Delete "$SMPROGRAMS\${PRODUCT}.lnk"
	ReadRegStr $0 HKCU "${RUN_KEY}" "${RUN_VALUE}"
	${If} $0 == '"$INSTDIR\${APP_EXE}"'
		DeleteRegValue HKCU "${RUN_KEY}" "${RUN_VALUE}"
	${EndIf}
	DeleteRegKey HKCU "${UNINST_KEY}"
	Delete "$INSTDIR\uninstall.exe"
	RMDir "$INSTDIR"
SectionEnd
