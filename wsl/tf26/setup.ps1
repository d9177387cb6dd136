<#
.SYNOPSIS
    Prepares Windows for tfenv's tf26 environment (TensorFlow 2.6.5, GPU, inside WSL2) and runs install.sh there.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv wsl tf26 --windows`: edit the template, not this file.
    Runs on Windows PowerShell 5.1 (every Windows 10) and PowerShell 7, 64-bit or 32-bit.
    Checks, in order: Windows build 19044 or later; the NVIDIA Windows driver 495.0 or newer
    (read from nvidia-smi, before anything is downloaded); WSL present and working (wsl --update; offline, a
    failed update is a warning while WSL works); the distribution installed, on WSL 2, and starting.
    Then it runs install.sh (next to this script) inside the distribution, handing it the pip and proxy
    settings of Windows through WSLENV (PIP_INDEX_URL/u, PIP_EXTRA_INDEX_URL/u, PIP_CERT/up, HTTPS_PROXY/u, HTTP_PROXY/u, NO_PROXY/u; PIP_CERT's path translated),
    since a non-interactive 'wsl --exec bash' reads no ~/.bashrc. Never install a Linux NVIDIA driver inside
    WSL: the Windows driver is the only one WSL needs.

    Exit codes:
      0   done: install.sh installed (or found) everything and its checks passed
      1   never set by the script: PowerShell refused to start it (a mistyped or invalid parameter, such as a -Distribution not in the list)
      10  an unexpected error in this script (the message says where)
      11  Windows is too old for the GPU in WSL2, or 32-bit
      12  WSL is missing or does not work (wsl --install needs an administrator PowerShell and a restart)
      13  the distribution is missing (-CheckOnly), on WSL 1, or could not be installed or converted
      14  WSL or the distribution was just installed: restart Windows if asked, create the Linux user, run again
      15  no NVIDIA driver, no GPU, or a driver too old (checked before anything is downloaded)
      16  install.sh not found, or its path could not be translated for WSL (wslpath)
      17  wsl.exe could not start the distribution (virtualisation off in the firmware, Virtual Machine Platform disabled; its message is shown)
      20  install.sh ran and its final checks failed (its exit 1)
      21  install.sh stopped before its checks: a preflight problem, a bad option or a failed install step (its exit 2; its message says what to do)
      22  install.sh stopped with another code (shown in the message)
      130 install.sh was interrupted (Ctrl-C)

.PARAMETER Distribution
    The WSL distribution to use: Ubuntu-20.04, Ubuntu-18.04, Debian. Default: Ubuntu-20.04.

.PARAMETER CheckOnly
    Check Windows and the distribution (and run install.sh --check); change nothing.

.PARAMETER InstallScript
    The bash script to hand over to. Default: install.sh next to this script.

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\setup.ps1 -Distribution Ubuntu-20.04
#>
[CmdletBinding()]
param(
    [ValidateSet('Ubuntu-20.04', 'Ubuntu-18.04', 'Debian')]
    [string]$Distribution = 'Ubuntu-20.04',
    [switch]$CheckOnly,
    # Resolved below: Windows PowerShell 5.1 leaves $PSScriptRoot empty in parameter defaults under -File.
    [string]$InstallScript = ''
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

if (-not $InstallScript) {
    $here = if ($PSScriptRoot) { $PSScriptRoot } else { Split-Path -Parent -Path $MyInvocation.MyCommand.Path }
    $InstallScript = Join-Path -Path $here -ChildPath 'install.sh'
}
$MinimumBuild = 19044
$MinimumDriver = [version]'495.0'
$WslExe = $null   # set by Assert-Wsl
# Windows settings install.sh needs (WSLENV names them; /u: from Windows to WSL only, /p: translate a path).
# Never anything that turns TLS verification off: a private CA goes in PIP_CERT.
$WslEnvVariables = @('PIP_INDEX_URL/u', 'PIP_EXTRA_INDEX_URL/u', 'PIP_CERT/up', 'HTTPS_PROXY/u', 'HTTP_PROXY/u', 'NO_PROXY/u')
# The exit codes (the help above lists the same table); 1 is PowerShell's own, for a parameter it refused.
$Exit = @{
    Ready = 0
    PowerShell = 1
    Unexpected = 10
    WindowsTooOld = 11
    NoWsl = 12
    NoDistribution = 13
    FinishSetup = 14
    NoDriver = 15
    NoInstallScript = 16
    WslFailed = 17
    ChecksFailed = 20
    InstallStopped = 21
    InstallFailed = 22
    Interrupted = 130
}

# An error this script did not foresee: one line and its exit code, not a stack of red text.
trap {
    [Console]::Error.WriteLine("tfenv-wsl: error: unexpected: $($_.Exception.Message) (line $($_.InvocationInfo.ScriptLineNumber))")
    exit $Exit.Unexpected
}

function Write-Step {
    param([Parameter(Mandatory)][string]$Message)
    Write-Information -MessageData "tfenv-wsl: $Message" -InformationAction Continue
}

function Stop-Setup {
    param([Parameter(Mandatory)][ValidateRange(2, 255)][int]$Code, [Parameter(Mandatory)][string]$Message)
    [Console]::Error.WriteLine("tfenv-wsl: error: $Message")
    exit $Code
}

function Get-SystemDirectory {
    # A 32-bit PowerShell on 64-bit Windows sees SysWOW64 as System32, where wsl.exe and nvidia-smi.exe
    # do not exist; Sysnative is the real System32 for it.
    if ([Environment]::Is64BitOperatingSystem -and -not [Environment]::Is64BitProcess) {
        return (Join-Path -Path $env:windir -ChildPath 'Sysnative')
    }
    return (Join-Path -Path $env:windir -ChildPath 'System32')
}

function Get-ProgramFiles {
    # In a 32-bit PowerShell $env:ProgramFiles is 'Program Files (x86)'; ProgramW6432 is the 64-bit one.
    if ($env:ProgramW6432) {
        return $env:ProgramW6432
    }
    return $env:ProgramFiles
}

function Resolve-WslExe {
    $path = Join-Path -Path (Get-SystemDirectory) -ChildPath 'wsl.exe'
    if (Test-Path -LiteralPath $path) {
        return $path
    }
    $found = Get-Command -Name 'wsl.exe' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($found) {
        return $found.Source
    }
    return $null
}

function Test-Administrator {
    $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
    return (New-Object -TypeName Security.Principal.WindowsPrincipal -ArgumentList $identity).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}

function ConvertTo-CommandLine {
    # ProcessStartInfo takes one command line: quote each argument the way the C runtime splits it.
    param([string[]]$Arguments = @())
    $quoted = foreach ($argument in $Arguments) {
        if ($argument -and $argument -notmatch '[\s"]') {
            $argument
        } else {
            '"' + (($argument -replace '(\\*)"', '$1$1\"') -replace '(\\+)$', '$1$1') + '"'
        }
    }
    return ($quoted -join ' ')
}

function ConvertFrom-NativeBytes {
    # wsl.exe writes its own messages as UTF-16LE (UTF-8 where WSL_UTF8=1 is honoured, newer WSL only);
    # Linux programs and nvidia-smi write UTF-8. A NUL byte never occurs in UTF-8 text: it marks UTF-16LE.
    param([byte[]]$Bytes = @())
    if ($Bytes.Length -ge 2 -and $Bytes[0] -eq 0xFF -and $Bytes[1] -eq 0xFE) {
        return [Text.Encoding]::Unicode.GetString($Bytes, 2, $Bytes.Length - 2)
    }
    if ([Array]::IndexOf($Bytes, [byte]0) -ge 0) {
        return [Text.Encoding]::Unicode.GetString($Bytes)
    }
    return (New-Object -TypeName Text.UTF8Encoding -ArgumentList $false).GetString($Bytes)
}

function Invoke-Captured {
    # Runs a program and returns its exit code and output lines, read as bytes and decoded by what they are
    # (never through the console's code page, which garbles UTF-16 and every non-ASCII letter).
    param([Parameter(Mandatory)][string]$FilePath, [string[]]$ArgumentList = @())
    $info = New-Object -TypeName Diagnostics.ProcessStartInfo
    $info.FileName = $FilePath
    $info.Arguments = ConvertTo-CommandLine -Arguments $ArgumentList
    $info.UseShellExecute = $false
    $info.CreateNoWindow = $true
    $info.RedirectStandardOutput = $true
    $info.RedirectStandardError = $true
    $process = [Diagnostics.Process]::Start($info)
    $stdout = New-Object -TypeName IO.MemoryStream
    $stderr = New-Object -TypeName IO.MemoryStream
    $errorCopy = $process.StandardError.BaseStream.CopyToAsync($stderr)
    $process.StandardOutput.BaseStream.CopyTo($stdout)
    $errorCopy.Wait()
    $process.WaitForExit()
    $text = (ConvertFrom-NativeBytes -Bytes $stdout.ToArray()) + "`n" + (ConvertFrom-NativeBytes -Bytes $stderr.ToArray())
    $lines = @($text -split '\r?\n' | ForEach-Object { $_.Trim() } | Where-Object { $_ })
    [pscustomobject]@{ ExitCode = $process.ExitCode; Lines = $lines }
}

function Invoke-Wsl {
    # wsl.exe on this console, not behind a pipe (its prompts and install.sh's progress show), with the
    # Windows settings install.sh needs carried by WSLENV; the caller's WSLENV is restored. Returns the exit code.
    param([Parameter(Mandatory)][string[]]$ArgumentList)
    $saved = $env:WSLENV
    try {
        $carried = @($WslEnvVariables | Where-Object { Test-Path -LiteralPath ('Env:' + ($_ -replace '/.*$', '')) })
        $env:WSLENV = (@(@($saved) | Where-Object { $_ }) + $carried) -join ':'
        # Not -Wait: it also waits for every descendant, and wsl.exe can leave wslhost.exe running.
        $process = Start-Process -FilePath $script:WslExe -ArgumentList (ConvertTo-CommandLine -Arguments $ArgumentList) -NoNewWindow -PassThru
        $null = $process.Handle  # keeps ExitCode readable after the process ends (a Start-Process quirk)
        $process.WaitForExit()
        return $process.ExitCode
    } finally {
        $env:WSLENV = $saved
    }
}

function Get-CarriedSettings {
    # The names WSLENV hands to install.sh this run; a proxy on Windows' 127.0.0.1 is not Linux's 127.0.0.1.
    $names = @($WslEnvVariables | ForEach-Object { $_ -replace '/.*$', '' } | Where-Object { Test-Path -LiteralPath "Env:$_" })
    foreach ($name in @($names | Where-Object { $_ -like '*PROXY' -and $_ -ne 'NO_PROXY' })) {
        $value = (Get-Item -LiteralPath "Env:$name").Value
        if ($value -match '//(127\.|localhost[:/]|\[::1\])') {
            Write-Step "warning: $name=$value points at this Windows' loopback, which WSL2 reaches only with networkingMode=mirrored (.wslconfig): otherwise use this PC's LAN address and let the proxy accept it"
        }
    }
    return $names
}

function Assert-WindowsBuild {
    $build = [int](Get-CimInstance -ClassName Win32_OperatingSystem).BuildNumber
    if ($build -lt $MinimumBuild) {
        Stop-Setup -Code $Exit.WindowsTooOld -Message "Windows build $build is too old for the GPU in WSL2: update to Windows 10 21H2 (build $MinimumBuild) or Windows 11 with Windows Update, then run this script again"
    }
    if (-not [Environment]::Is64BitOperatingSystem) {
        Stop-Setup -Code $Exit.WindowsTooOld -Message 'this is 32-bit Windows: WSL2 and CUDA need 64-bit Windows'
    }
    Write-Step "ok: Windows build $build (at least $MinimumBuild)"
}

function Assert-NvidiaDriver {
    $candidates = @(
        (Join-Path -Path (Get-SystemDirectory) -ChildPath 'nvidia-smi.exe'),
        (Join-Path -Path (Get-ProgramFiles) -ChildPath 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    $smi = $candidates | Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1
    if (-not $smi) {
        Stop-Setup -Code $Exit.NoDriver -Message "nvidia-smi.exe not found, so no NVIDIA driver is installed: install the NVIDIA Windows driver $MinimumDriver or newer (not a Linux driver inside WSL), then run this script again"
    }
    $result = Invoke-Captured -FilePath $smi -ArgumentList @('--query-gpu=driver_version', '--format=csv,noheader')
    $version = [regex]::Match("$($result.Lines | Select-Object -First 1)", '^\d+\.\d+')
    if ($result.ExitCode -ne 0 -or -not $version.Success) {
        Stop-Setup -Code $Exit.NoDriver -Message "nvidia-smi found no GPU ($($result.Lines -join ' ')): check the GPU in Device Manager and reinstall the NVIDIA driver ($MinimumDriver or newer)"
    }
    $driver = [version]$version.Value
    if ($driver -lt $MinimumDriver) {
        Stop-Setup -Code $Exit.NoDriver -Message "the NVIDIA driver is $driver; it needs $MinimumDriver or newer (WSL2: 495.0, CUDA 11.2: 461.33): update it on Windows, run 'wsl --shutdown', then run this script again"
    }
    Write-Step "ok: NVIDIA driver $driver (at least $MinimumDriver)"
}

function Assert-Wsl {
    $install = "in an administrator PowerShell run 'wsl --install', restart Windows (it needs a restart), then run this script again"
    $script:WslExe = Resolve-WslExe
    if (-not $script:WslExe) {
        Stop-Setup -Code $Exit.NoWsl -Message "WSL is not installed: $install"
    }
    $status = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('--status')
    if ($CheckOnly) {
        if ($status.ExitCode -ne 0) {
            Stop-Setup -Code $Exit.NoWsl -Message "WSL does not work ($($status.Lines -join ' ')): $install"
        }
        Write-Step 'ok: WSL works (skipping wsl --update: -CheckOnly)'
        return
    }
    Write-Step 'updating WSL (wsl --update)'
    $update = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('--update')
    if ($update.ExitCode -ne 0) {
        if ($status.ExitCode -ne 0) {
            $admin = if (Test-Administrator) { '' } else { ' (this PowerShell is not an administrator one)' }
            Stop-Setup -Code $Exit.NoWsl -Message "WSL does not work and 'wsl --update' failed ($($update.Lines -join ' '))$($admin): $install"
        }
        Write-Step "warning: 'wsl --update' failed ($($update.Lines -join ' ')); WSL works, so this run goes on with the WSL it has (offline? run 'wsl --update' later)"
    }
    $null = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('--set-default-version', '2')
}

function Get-WslDistribution {
    # 'wsl --list --verbose' lines: [*] NAME STATE VERSION
    $result = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('--list', '--verbose')
    foreach ($line in $result.Lines) {
        $fields = @(($line -replace '^\s*\*?\s*', '') -split '\s+' | Where-Object { $_ })
        if ($fields.Count -ge 3 -and $fields[-1] -match '^[12]$') {
            [pscustomobject]@{ Name = $fields[0]; Version = [int]$fields[-1] }
        }
    }
}

function Install-Distribution {
    $found = @(Get-WslDistribution | Where-Object { $_.Name -eq $Distribution })
    if ($found.Count -eq 0) {
        if ($CheckOnly) {
            Stop-Setup -Code $Exit.NoDistribution -Message "the distribution $Distribution is not installed: run 'wsl --install -d $Distribution' (or this script without -CheckOnly)"
        }
        Write-Step "installing $Distribution (wsl --install -d $Distribution)"
        # On this console: the first start asks for a Linux user name and password.
        $code = Invoke-Wsl -ArgumentList @('--install', '-d', $Distribution)
        if ($code -ne 0) {
            Stop-Setup -Code $Exit.NoDistribution -Message "'wsl --install -d $Distribution' failed (exit code $code, its message is above): run it yourself in an administrator PowerShell, restart Windows if it asks, create the Linux user, then run this script again"
        }
        Stop-Setup -Code $Exit.FinishSetup -Message "$Distribution was installed: if Windows asks for a restart, restart; if it did not ask for a Linux user yet, open $Distribution once from the Start menu to create one; then run this script again"
    }
    if ($found[0].Version -ne 2) {
        if ($CheckOnly) {
            Stop-Setup -Code $Exit.NoDistribution -Message "$Distribution runs on WSL 1, which has no GPU: run 'wsl --set-version $Distribution 2'"
        }
        Write-Step "converting $Distribution to WSL 2"
        $result = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('--set-version', $Distribution, '2')
        if ($result.ExitCode -ne 0) {
            Stop-Setup -Code $Exit.NoDistribution -Message "'wsl --set-version $Distribution 2' failed ($($result.Lines -join ' ')): enable 'Virtual Machine Platform' in Windows features, restart, then run this script again"
        }
    }
    Write-Step "ok: $Distribution on WSL 2"
}

function Stop-WslFailure {
    # wsl.exe's own failures come back as codes outside 0-255 (-1, or an HRESULT), its message in UTF-16.
    param([Parameter(Mandatory)][int]$Code, [string[]]$Lines = @())
    $hint = 'run "wsl -d ' + $Distribution + '" yourself to see it start'
    if ("$Lines" -match '0x80370102|HCS_E_HYPERV_NOT_INSTALLED|[Vv]irtuali[sz]') {
        $hint = "turn on virtualisation (Intel VT-x or AMD-V/SVM) in the firmware settings and 'Virtual Machine Platform' in Windows features, restart, then run this script again"
    }
    Stop-Setup -Code $Exit.WslFailed -Message "wsl.exe could not start $Distribution (exit $Code$(if ($Lines) { ': ' + ($Lines -join ' ') })): $hint"
}

function Get-LinuxPath {
    # wslpath runs in Linux: its answer is UTF-8, wsl.exe's own error UTF-16; Invoke-Captured reads both.
    # A folder with a space or any letters (C:\Users\<name>) is one argument all the way (--exec, no shell).
    $windowsPath = (Resolve-Path -LiteralPath $InstallScript).ProviderPath
    $result = Invoke-Captured -FilePath $script:WslExe -ArgumentList @('-d', $Distribution, '--exec', 'wslpath', '-a', ($windowsPath -replace '\\', '/'))
    if ($result.ExitCode -lt 0 -or $result.ExitCode -gt 255) {
        Stop-WslFailure -Code $result.ExitCode -Lines $result.Lines
    }
    $linuxPath = $result.Lines | Select-Object -Last 1
    if ($result.ExitCode -ne 0 -or -not $linuxPath -or -not $linuxPath.StartsWith('/')) {
        Stop-Setup -Code $Exit.NoInstallScript -Message "wslpath could not translate $windowsPath for $Distribution ($($result.Lines -join ' ')): copy install.sh into the distribution and run 'bash install.sh' there"
    }
    return $linuxPath
}

function Invoke-InstallScript {
    if (-not (Test-Path -LiteralPath $InstallScript)) {
        Stop-Setup -Code $Exit.NoInstallScript -Message "$InstallScript not found: keep install.sh next to this script (both are in tfenv's wsl/tf26/ folder)"
    }
    # --exec: the arguments reach bash as they are, with no Linux shell to split a path with a space again.
    $arguments = @('-d', $Distribution, '--exec', 'bash', (Get-LinuxPath), '--distro', $Distribution)
    if ($CheckOnly) {
        $arguments += '--check'
    }
    $carried = @(Get-CarriedSettings)
    Write-Step "running install.sh inside $Distribution (Windows settings passed on: $(if ($carried) { $carried -join ', ' } else { 'none set' }))"
    $code = Invoke-Wsl -ArgumentList $arguments
    if ($code -lt 0 -or $code -gt 255) {
        Stop-WslFailure -Code $code
    }
    $mapped = @{ 0 = $Exit.Ready; 1 = $Exit.ChecksFailed; 2 = $Exit.InstallStopped; 130 = $Exit.Interrupted }
    if ($code -eq 0) {
        return
    }
    if ($mapped.ContainsKey($code)) {
        Stop-Setup -Code $mapped[$code] -Message "install.sh stopped with exit code $code; its message above says what to do"
    }
    Stop-Setup -Code $Exit.InstallFailed -Message "install.sh stopped with exit code $code; its message above says what to do"
}

Assert-WindowsBuild
Assert-NvidiaDriver
Assert-Wsl
Install-Distribution
Invoke-InstallScript
exit $Exit.Ready
