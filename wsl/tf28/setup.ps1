<#
.SYNOPSIS
    Prepares Windows for tfenv's tf28 environment (TensorFlow 2.8.4, GPU, inside WSL2) and runs install.sh there.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv wsl tf28 --windows`: edit wsl/templates/, not this file.
    Checks, in order: Windows build 19044 or later; WSL present and up to date (wsl --update);
    the distribution installed and on WSL 2; the NVIDIA Windows driver 495.0 or newer (read from nvidia-smi).
    Then it runs install.sh (next to this script) inside the distribution. Never install a Linux NVIDIA
    driver inside WSL: the Windows driver is the only one WSL needs.

.PARAMETER Distribution
    The WSL distribution to use: Ubuntu-20.04, Ubuntu-18.04, Debian. Default: Ubuntu-20.04.

.PARAMETER CheckOnly
    Check Windows and the distribution (and run install.sh --check); change nothing.

.PARAMETER InstallScript
    The bash script to hand over to. Default: install.sh next to this script.

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File .\setup.ps1 -Distribution Ubuntu-20.04
#>
[CmdletBinding()]
param(
    [ValidateSet('Ubuntu-20.04', 'Ubuntu-18.04', 'Debian')]
    [string]$Distribution = 'Ubuntu-20.04',
    [switch]$CheckOnly,
    [string]$InstallScript = (Join-Path -Path $PSScriptRoot -ChildPath 'install.sh')
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$MinimumBuild = 19044
$MinimumDriver = [version]'495.0'
# wsl.exe writes UTF-16 unless told otherwise; WSL_UTF8 makes its lists readable.
$env:WSL_UTF8 = '1'

function Write-Step {
    param([Parameter(Mandatory)][string]$Message)
    Write-Information -MessageData "tfenv-wsl: $Message" -InformationAction Continue
}

function Invoke-Wsl {
    param([Parameter(Mandatory)][string[]]$Arguments)
    $output = & wsl.exe @Arguments 2>&1
    [pscustomobject]@{ ExitCode = $LASTEXITCODE; Lines = @($output | ForEach-Object { "$_" -replace "`0", '' }) }
}

function Assert-WindowsBuild {
    $build = [int](Get-CimInstance -ClassName Win32_OperatingSystem).BuildNumber
    if ($build -lt $MinimumBuild) {
        throw "tfenv-wsl: Windows build $build is too old for the GPU in WSL2: update to Windows 10 21H2 (build $MinimumBuild) or Windows 11 with Windows Update, then run this script again"
    }
    Write-Step "ok: Windows build $build (at least $MinimumBuild)"
}

function Assert-Wsl {
    if (-not (Get-Command -Name 'wsl.exe' -ErrorAction SilentlyContinue)) {
        throw 'tfenv-wsl: WSL is not installed: run "wsl --install" in an administrator PowerShell, restart Windows, then run this script again'
    }
    if ($CheckOnly) {
        Write-Step 'ok: wsl.exe present (skipping wsl --update: -CheckOnly)'
        return
    }
    Write-Step 'updating WSL (wsl --update)'
    $result = Invoke-Wsl -Arguments @('--update')
    if ($result.ExitCode -ne 0) {
        throw "tfenv-wsl: 'wsl --update' failed ($($result.Lines -join ' ')): run it in an administrator PowerShell, then run this script again"
    }
    $null = Invoke-Wsl -Arguments @('--set-default-version', '2')
}

function Get-WslDistribution {
    # 'wsl --list --verbose' lines: [*] NAME STATE VERSION
    $result = Invoke-Wsl -Arguments @('--list', '--verbose')
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
            throw "tfenv-wsl: the distribution $Distribution is not installed: run 'wsl --install -d $Distribution' (or this script without -CheckOnly)"
        }
        Write-Step "installing $Distribution (wsl --install -d $Distribution)"
        $result = Invoke-Wsl -Arguments @('--install', '-d', $Distribution)
        if ($result.ExitCode -ne 0) {
            throw "tfenv-wsl: 'wsl --install -d $Distribution' failed ($($result.Lines -join ' ')): run it yourself, create the Linux user it asks for, then run this script again"
        }
        throw "tfenv-wsl: $Distribution was installed: open it once from the Start menu to create your Linux user, then run this script again"
    }
    if ($found[0].Version -ne 2) {
        if ($CheckOnly) {
            throw "tfenv-wsl: $Distribution runs on WSL 1, which has no GPU: run 'wsl --set-version $Distribution 2'"
        }
        Write-Step "converting $Distribution to WSL 2"
        $result = Invoke-Wsl -Arguments @('--set-version', $Distribution, '2')
        if ($result.ExitCode -ne 0) {
            throw "tfenv-wsl: 'wsl --set-version $Distribution 2' failed ($($result.Lines -join ' ')): enable 'Virtual Machine Platform' in Windows features, restart, then run this script again"
        }
    }
    Write-Step "ok: $Distribution on WSL 2"
}

function Assert-NvidiaDriver {
    $candidates = @(
        (Join-Path -Path $env:SystemRoot -ChildPath 'System32\nvidia-smi.exe'),
        (Join-Path -Path $env:ProgramFiles -ChildPath 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    $smi = $candidates | Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1
    if (-not $smi) {
        throw "tfenv-wsl: nvidia-smi.exe not found, so no NVIDIA driver is installed: install the NVIDIA Windows driver $MinimumDriver or newer (not a Linux driver inside WSL), then run this script again"
    }
    $text = & $smi --query-gpu=driver_version --format=csv,noheader | Select-Object -First 1
    if ($LASTEXITCODE -ne 0 -or -not $text) {
        throw "tfenv-wsl: nvidia-smi found no GPU: check the GPU in Device Manager and reinstall the NVIDIA driver ($MinimumDriver or newer)"
    }
    $driver = [version]($text.Trim())
    if ($driver -lt $MinimumDriver) {
        throw "tfenv-wsl: the NVIDIA driver is $driver; it needs $MinimumDriver or newer (WSL2: 495.0, CUDA 11.2: 461.33): update it on Windows, run 'wsl --shutdown', then run this script again"
    }
    Write-Step "ok: NVIDIA driver $driver (at least $MinimumDriver)"
}

function Invoke-InstallScript {
    if (-not (Test-Path -LiteralPath $InstallScript)) {
        throw "tfenv-wsl: $InstallScript not found: keep install.sh next to this script (both are in tfenv's wsl/tf28/ folder)"
    }
    $windowsPath = (Resolve-Path -LiteralPath $InstallScript).Path
    $linuxPath = (& wsl.exe -d $Distribution -- wslpath -a ($windowsPath -replace '\\', '/')) -replace "`0", ''
    $arguments = @('-d', $Distribution, '--', 'bash', $linuxPath.Trim(), '--distro', $Distribution)
    if ($CheckOnly) {
        $arguments += '--check'
    }
    Write-Step "running install.sh inside $Distribution"
    & wsl.exe @arguments
    if ($LASTEXITCODE -ne 0) {
        throw "tfenv-wsl: install.sh stopped with exit code $LASTEXITCODE; its message above says what to do"
    }
}

Assert-WindowsBuild
Assert-Wsl
Install-Distribution
Assert-NvidiaDriver
Invoke-InstallScript
