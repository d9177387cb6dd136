<#
.SYNOPSIS
    Prepares Windows for tfenv's tf22-cuda101 environment (TensorFlow 2.2.3, GPU, inside WSL2) and runs install.sh there.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv wsl tf22-cuda101 --windows`: edit the template, not this file.
    Runs on Windows PowerShell 5.1 (every Windows 10) and PowerShell 7, 64-bit or 32-bit.
    Checks, in order: Windows build 19044 or later; WSL present and up to date (wsl --update);
    the distribution installed and on WSL 2; the NVIDIA Windows driver 495.0 or newer (read from nvidia-smi).
    Then it runs install.sh (next to this script) inside the distribution. Never install a Linux NVIDIA
    driver inside WSL: the Windows driver is the only one WSL needs.

    Exit codes:
      0   everything passed
      1, 2, 130   install.sh failed with this code (1: its final checks failed; 2: preflight or bad
                  option; 130: interrupted); its own message above says what to do
      10  unexpected error in this script (the message says where)
      11  Windows is too old for the GPU in WSL2
      12  WSL is missing, or 'wsl --update' failed
      13  the distribution is missing (-CheckOnly), on WSL 1, or could not be installed or converted
      14  the distribution was just installed: create the Linux user it asks for, then run this script again
      15  no NVIDIA driver, no GPU, or a driver older than 495.0
      16  install.sh not found, or its path could not be translated for WSL (wslpath)

.PARAMETER Distribution
    The WSL distribution to use: Ubuntu-20.04, Ubuntu-18.04. Default: Ubuntu-20.04.

.PARAMETER CheckOnly
    Check Windows and the distribution (and run install.sh --check); change nothing.

.PARAMETER InstallScript
    The bash script to hand over to. Default: install.sh next to this script.

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File .\setup.ps1 -Distribution Ubuntu-20.04
#>
[CmdletBinding()]
param(
    [ValidateSet('Ubuntu-20.04', 'Ubuntu-18.04')]
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
# wsl.exe writes its own messages as UTF-16LE; WSL_UTF8 would switch that to UTF-8 where wsl.exe knows it
# and not elsewhere, so it is cleared and every call says how to decode (Invoke-Native -Encoding).
$env:WSL_UTF8 = $null
$Utf16 = [System.Text.Encoding]::Unicode
$Utf8 = New-Object -TypeName System.Text.UTF8Encoding -ArgumentList $false

# An error this script did not foresee: one line and exit code 10, not a stack of red text.
trap {
    [Console]::Error.WriteLine("tfenv-wsl: error: unexpected: $($_.Exception.Message) (line $($_.InvocationInfo.ScriptLineNumber))")
    exit 10
}

function Write-Step {
    param([Parameter(Mandatory)][string]$Message)
    Write-Information -MessageData "tfenv-wsl: $Message" -InformationAction Continue
}

function Stop-Setup {
    param([Parameter(Mandatory)][int]$Code, [Parameter(Mandatory)][string]$Message)
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

function Invoke-Native {
    # Runs a program and returns its exit code and output lines. The local 'Continue' keeps Windows
    # PowerShell 5.1 from turning the program's first stderr line into a terminating error under 'Stop'.
    param(
        [Parameter(Mandatory)][string]$FilePath,
        [string[]]$ArgumentList = @(),
        [Parameter(Mandatory)][System.Text.Encoding]$Encoding
    )
    $ErrorActionPreference = 'Continue'
    $previous = $null
    try {
        # PowerShell decodes a native program's output with [Console]::OutputEncoding. Hosts without a
        # console (ISE) refuse the change: then the NUL bytes of UTF-16 are dropped below.
        try {
            $saved = [Console]::OutputEncoding
            [Console]::OutputEncoding = $Encoding
            $previous = $saved
        } catch {
            $previous = $null
        }
        $output = & $FilePath @ArgumentList 2>&1
        $code = $LASTEXITCODE
    } finally {
        if ($previous) { [Console]::OutputEncoding = $previous }
    }
    $lines = @($output | ForEach-Object { ("$_" -replace "`0", '').TrimEnd() } | Where-Object { $_ })
    [pscustomobject]@{ ExitCode = $code; Lines = $lines }
}

function Assert-WindowsBuild {
    $build = [int](Get-CimInstance -ClassName Win32_OperatingSystem).BuildNumber
    if ($build -lt $MinimumBuild) {
        Stop-Setup -Code 11 -Message "Windows build $build is too old for the GPU in WSL2: update to Windows 10 21H2 (build $MinimumBuild) or Windows 11 with Windows Update, then run this script again"
    }
    if (-not [Environment]::Is64BitOperatingSystem) {
        Stop-Setup -Code 11 -Message 'this is 32-bit Windows: WSL2 and CUDA need 64-bit Windows'
    }
    Write-Step "ok: Windows build $build (at least $MinimumBuild)"
}

function Assert-Wsl {
    $script:WslExe = Resolve-WslExe
    if (-not $script:WslExe) {
        Stop-Setup -Code 12 -Message 'WSL is not installed: run "wsl --install" in an administrator PowerShell, restart Windows, then run this script again'
    }
    if ($CheckOnly) {
        Write-Step 'ok: wsl.exe present (skipping wsl --update: -CheckOnly)'
        return
    }
    Write-Step 'updating WSL (wsl --update)'
    $result = Invoke-Native -FilePath $script:WslExe -ArgumentList @('--update') -Encoding $Utf16
    if ($result.ExitCode -ne 0) {
        Stop-Setup -Code 12 -Message "'wsl --update' failed ($($result.Lines -join ' ')): run it in an administrator PowerShell, then run this script again"
    }
    $null = Invoke-Native -FilePath $script:WslExe -ArgumentList @('--set-default-version', '2') -Encoding $Utf16
}

function Get-WslDistribution {
    # 'wsl --list --verbose' lines: [*] NAME STATE VERSION
    $result = Invoke-Native -FilePath $script:WslExe -ArgumentList @('--list', '--verbose') -Encoding $Utf16
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
            Stop-Setup -Code 13 -Message "the distribution $Distribution is not installed: run 'wsl --install -d $Distribution' (or this script without -CheckOnly)"
        }
        Write-Step "installing $Distribution (wsl --install -d $Distribution)"
        # Not captured: the first start asks for a Linux user name and password on this console.
        $installArguments = @('--install', '-d', $Distribution)
        $ErrorActionPreference = 'Continue'
        & $script:WslExe @installArguments
        $code = $LASTEXITCODE
        $ErrorActionPreference = 'Stop'
        if ($code -ne 0) {
            Stop-Setup -Code 13 -Message "'wsl --install -d $Distribution' failed (exit code $code, its message is above): run it yourself, create the Linux user it asks for, then run this script again"
        }
        Stop-Setup -Code 14 -Message "$Distribution was installed: if it did not ask for a Linux user yet, open it once from the Start menu to create one, then run this script again"
    }
    if ($found[0].Version -ne 2) {
        if ($CheckOnly) {
            Stop-Setup -Code 13 -Message "$Distribution runs on WSL 1, which has no GPU: run 'wsl --set-version $Distribution 2'"
        }
        Write-Step "converting $Distribution to WSL 2"
        $result = Invoke-Native -FilePath $script:WslExe -ArgumentList @('--set-version', $Distribution, '2') -Encoding $Utf16
        if ($result.ExitCode -ne 0) {
            Stop-Setup -Code 13 -Message "'wsl --set-version $Distribution 2' failed ($($result.Lines -join ' ')): enable 'Virtual Machine Platform' in Windows features, restart, then run this script again"
        }
    }
    Write-Step "ok: $Distribution on WSL 2"
}

function Assert-NvidiaDriver {
    # $env:ProgramFiles is 'Program Files (x86)' in a 32-bit process; ProgramW6432 is the 64-bit one.
    $programFiles = if ($env:ProgramW6432) { $env:ProgramW6432 } else { $env:ProgramFiles }
    $candidates = @(
        (Join-Path -Path (Get-SystemDirectory) -ChildPath 'nvidia-smi.exe'),
        (Join-Path -Path $programFiles -ChildPath 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    $smi = $candidates | Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1
    if (-not $smi) {
        Stop-Setup -Code 15 -Message "nvidia-smi.exe not found, so no NVIDIA driver is installed: install the NVIDIA Windows driver $MinimumDriver or newer (not a Linux driver inside WSL), then run this script again"
    }
    $result = Invoke-Native -FilePath $smi -ArgumentList @('--query-gpu=driver_version', '--format=csv,noheader') -Encoding $Utf8
    $version = [regex]::Match("$($result.Lines | Select-Object -First 1)", '^\d+\.\d+')
    if ($result.ExitCode -ne 0 -or -not $version.Success) {
        Stop-Setup -Code 15 -Message "nvidia-smi found no GPU ($($result.Lines -join ' ')): check the GPU in Device Manager and reinstall the NVIDIA driver ($MinimumDriver or newer)"
    }
    $driver = [version]$version.Value
    if ($driver -lt $MinimumDriver) {
        Stop-Setup -Code 15 -Message "the NVIDIA driver is $driver; it needs $MinimumDriver or newer (WSL2: 495.0, CUDA 10.1: 418.96): update it on Windows, run 'wsl --shutdown', then run this script again"
    }
    Write-Step "ok: NVIDIA driver $driver (at least $MinimumDriver)"
}

function Invoke-InstallScript {
    if (-not (Test-Path -LiteralPath $InstallScript)) {
        Stop-Setup -Code 16 -Message "$InstallScript not found: keep install.sh next to this script (both are in tfenv's wsl/tf22-cuda101/ folder)"
    }
    $windowsPath = (Resolve-Path -LiteralPath $InstallScript).ProviderPath
    # wslpath runs in Linux and prints UTF-8: decoded as such, C:\Users\Jose-with-an-accent stays intact.
    $result = Invoke-Native -FilePath $script:WslExe -Encoding $Utf8 -ArgumentList @(
        '-d', $Distribution, '--', 'wslpath', '-a', ($windowsPath -replace '\\', '/'))
    $linuxPath = $result.Lines | Select-Object -Last 1
    if ($result.ExitCode -ne 0 -or -not $linuxPath -or -not $linuxPath.StartsWith('/')) {
        Stop-Setup -Code 16 -Message "wslpath could not translate $windowsPath for $Distribution ($($result.Lines -join ' ')): copy install.sh into the distribution and run 'bash install.sh' there"
    }
    $arguments = @('-d', $Distribution, '--', 'bash', $linuxPath, '--distro', $Distribution)
    if ($CheckOnly) {
        $arguments += '--check'
    }
    Write-Step "running install.sh inside $Distribution"
    # Not captured: its progress and messages go straight to this console.
    $ErrorActionPreference = 'Continue'
    & $script:WslExe @arguments
    $code = $LASTEXITCODE
    $ErrorActionPreference = 'Stop'
    if ($code -ne 0) {
        Stop-Setup -Code $code -Message "install.sh stopped with exit code $code; its message above says what to do"
    }
}

Assert-WindowsBuild
Assert-Wsl
Install-Distribution
Assert-NvidiaDriver
Invoke-InstallScript
exit 0
