// adkproxy completion: shell completion scripts. urfave/cli answers
// --generate-bash-completion with the commands or flags that fit; the bash
// and zsh scripts ask it, and fish gets urfave/cli's own script.

package main

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"
)

// bashCompletion asks adkproxy itself for the words that fit at the cursor
// (after urfave/cli's autocomplete/bash_autocomplete, without its need for
// the bash-completion package). After "--" the words are the wrapped
// command's: asking adkproxy there would run it, so bash completes them
// itself (command names, then file names).
const bashCompletion = `# adkproxy completion for bash: source <(adkproxy completion bash)
_adkproxy_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "${COMP_WORDS[i]}" == "--" ]]; then
      if ((i + 1 == COMP_CWORD)); then
        COMPREPLY=($(compgen -c -- "${cur}"))
      else
        COMPREPLY=()
      fi
      return 0
    fi
  done
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _adkproxy_complete adkproxy
`

// zshCompletion is urfave/cli's autocomplete/zsh_autocomplete for adkproxy.
const zshCompletion = `#compdef adkproxy
# adkproxy completion for zsh: source <(adkproxy completion zsh)
_adkproxy() {
  local -a opts
  local cur=${words[-1]}
  if (( ${words[(I)--]} && ${words[(I)--]} < CURRENT )); then
    _files  # the wrapped command's words: never ask adkproxy, which would run it
    return
  fi
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _adkproxy adkproxy
`

// powershellCompletion asks adkproxy for the words that fit, as the bash
// script does, and never after "--" (PowerShell then completes file names).
const powershellCompletion = `# adkproxy completion for PowerShell: adkproxy completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName adkproxy -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -le $cursorPosition } | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '' -and $words.Count -gt 1 -and $words[-1] -eq $wordToComplete) {
        $words = $words[0..($words.Count - 2)]
    }
    if ($words -contains '--') { return }  # the wrapped command's words: asking adkproxy would run it
    $rest = @()
    if ($words.Count -gt 1) { $rest = @($words[1..($words.Count - 1)]) }
    if ($wordToComplete -like '-*') { $rest += $wordToComplete }
    & $words[0] @rest --generate-bash-completion 2>$null |
        Where-Object { $_ -like "$wordToComplete*" } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`

// completionFlag is the hidden last argument with which the scripts ask
// adkproxy for the words that fit.
const completionFlag = "--generate-bash-completion"

// completingWrappedCommand is true when a completion script asks about a
// word after "--", a wrapped command's. urfave/cli would not complete there
// but run the command line as typed, the wrapped command with it; adkproxy
// answers nothing instead (for scripts installed before the bash script
// stopped asking).
func completingWrappedCommand(args []string) bool {
	n := len(args)
	return n > 0 && args[n-1] == completionFlag && slices.Contains(args[:n-1], "--")
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh, fish or PowerShell",
		ArgsUsage: "bash|zsh|fish|powershell",
		Description: "Completes commands and flags. Load it in the current shell, or install it:\n\n" +
			"   bash:  source <(adkproxy completion bash)      # or save it in ~/.local/share/bash-completion/completions/adkproxy\n" +
			"   zsh:   source <(adkproxy completion zsh)       # or save it as _adkproxy in a folder of $fpath\n" +
			"   fish:  adkproxy completion fish > ~/.config/fish/completions/adkproxy.fish\n" +
			"   PowerShell:  adkproxy completion powershell | Out-String | Invoke-Expression   # or add it to $PROFILE",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("completion takes one shell: bash, zsh, fish or powershell")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			case "powershell", "pwsh":
				fmt.Fprint(c.App.Writer, powershellCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, script)
			default:
				return usageErrorf("completion: unknown shell %q (bash, zsh, fish or powershell)", shell)
			}
			return nil
		},
		OnUsageError: commandUsageError,
	}
}
