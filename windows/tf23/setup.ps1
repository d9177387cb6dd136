<#
.SYNOPSIS
    Installs tfenv's tf23 environment natively on Windows: TensorFlow 2.3.4 with the GPU, in a venv.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv windows tf23`: edit builder/templates/windows/, not this file.
    Runs under Windows PowerShell 5.1 and PowerShell 7 on 64-bit Windows 10 or 11. Checks, in order:
    64-bit Windows 10/11; a python.org Python 3.8 (64-bit; the Microsoft Store's and conda's are refused);
    the Visual C++ 2015-2022 x64 runtime; the NVIDIA driver 418.96 or newer (nvidia-smi).
    Then (guided: there are no pip wheels for CUDA 10.1) it creates the venv, installs the
    pinned packages, runs NVIDIA's CUDA 10.1.243 installer silently with the runtime components only
    (no driver, no Visual Studio integration; this step needs an administrator PowerShell), copies the
    CUDA DLLs and those of the cuDNN zip you downloaded into the venv (tfenv\cuda\bin), and
    writes a .pth hook that puts that folder on PATH whenever the venv's python.exe starts.
    Last it runs the checks: every DLL TensorFlow loads opens from inside the venv, the
    TF version and build, the GPU is listed, and a Conv2D and a matmul on /GPU:0 match the CPU. A second run changes nothing.
    pip honours PIP_INDEX_URL and PIP_CERT (a mirror, a TLS-inspecting proxy's CA bundle).

    pip runs on this console, so its progress shows; the script sets UTF-8 between itself and Python for
    every call (user folders like C:\Users\<name> with any letters) and restores the console afterwards.

    Exit codes:
      0   ready: the venv is installed and every check passed
      1   never set by the script: PowerShell refused to start it (a mistyped or invalid parameter, a file that does not parse)
      2   a bad argument the script found (a path that is not a file; -CheckOnly with -DryRun)
      3   not 64-bit Windows 10 or 11
      4   no suitable Python (none found, another version or 32-bit, the Microsoft Store's, or conda's)
      5   the Visual C++ 2015-2022 x64 runtime is missing
      6   no NVIDIA driver, no GPU, or a driver too old
      7   creating the venv or installing packages failed, or an existing venv is broken (a venv this run created is removed)
      8   the CUDA installer or the cuDNN zip (guided route): missing, not downloaded, or failed
      9   -CheckOnly found no venv to check
      10  an unexpected error (the message says where; please report it)
      11  the venv path is too long for Windows without long-path support
      12  the final checks failed (the lines marked FAIL say what to do; the installed venv is kept)
      13  files of the venv are in use (Jupyter, an IDE, a Python program): close it and run again
      14  not enough free disk space for the packages or the CUDA installer

.PARAMETER Venv
    Where the venv goes. Default: %LOCALAPPDATA%\tfenv\tf23.

.PARAMETER Python
    The python.exe to create the venv with. Default: `py -3.8`, else python.exe on PATH.

.PARAMETER CudaInstaller
    NVIDIA's local installer cuda_10.1.243_426.00_win10.exe. Default: downloaded to %TEMP%\tfenv (resumable with
    curl.exe; removed after it ran), after a check of the free space.

.PARAMETER CudnnZip
    The cuDNN archive cudnn-10.1-windows10-x64-v7.6.5.32.zip (NVIDIA requires a login: https://developer.nvidia.com/rdp/cudnn-archive).

.PARAMETER CudnnSha256
    The SHA-256 the cuDNN zip must have (NVIDIA publishes none for it): the script compares it instead of
    printing the zip's SHA-256 and asking.

.PARAMETER CheckOnly
    Check the machine and an existing venv; change nothing.

.PARAMETER DryRun
    Check the machine and print what would be done; change nothing.

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\setup.ps1

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\setup.ps1 -CudnnZip $HOME\Downloads\cudnn-10.1-windows10-x64-v7.6.5.32.zip
#>
[CmdletBinding()]
param(
    [string]$Venv = '',
    [string]$Python = '',
    [string]$CudaInstaller = '',
    [string]$CudnnZip = '',
    [string]$CudnnSha256 = '',
    [switch]$CheckOnly,
    [switch]$DryRun
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'  # Invoke-WebRequest's progress bar slows 5.1 downloads badly

$EnvName = 'tf23'
$TensorFlow = '2.3.4'
$PythonLine = '3.8'
$MinimumDriver = [version]'418.96'
$HookName = 'tfenv-cuda-path.pth'
$HookLine = @'
import os, sys; (lambda os, ds: [os.environ.__setitem__('PATH', os.pathsep.join([d for d in ds if d not in os.environ.get('PATH', '').split(os.pathsep)] + [os.environ.get('PATH', '')]))] + [os.add_dll_directory(d) for d in ds if hasattr(os, 'add_dll_directory') and os.path.isdir(d)])(os, [os.path.join(sys.prefix, 'tfenv', 'cuda', 'bin')])
'@
$HookDirs = @('tfenv\cuda\bin')
# Each pin with the sha256 of every file it may be: pip installs them with --require-hashes.
$Requirements = @(
    'absl-py==0.14.1 --hash=sha256:565a2c1be855e466e697e1be6b9876c2435dda926954d1de4abf0d592561ece8'
    'astunparse==1.6.3 --hash=sha256:c2652417f2c8b5bb325c885ae329bdf3f86424075c4fd1a128674bc6fba4b8e8'
    'cachetools==4.2.4 --hash=sha256:92971d3cb7d2a97efff7c7bb1657f21a8f5fb309a37530537c71b1774189f2d1'
    'certifi==2021.5.30 --hash=sha256:50b1e4f8446b06f41be7dd6338db18e0990601dce795c2b1686458aa7e8fa7d8'
    'charset-normalizer==2.0.6 --hash=sha256:5d209c0a931f215cee683b6445e2d77677e7e75e159f78def0db09d68fafcaa6'
    'gast==0.3.3 --hash=sha256:8f46f5be57ae6889a4e16e2ca113b1703ef17f2b0abceb83793eaba9e1351a45'
    'google-auth==1.35.0 --hash=sha256:997516b42ecb5b63e8d80f5632c1a61dddf41d2a4c2748057837e06e00014258'
    'google-auth-oauthlib==0.4.6 --hash=sha256:3f2a6e802eebbb6fb736a370fbf3b055edcb6b52878bf2f26330b5e041316c73'
    'google-pasta==0.2.0 --hash=sha256:b32482794a366b5366a32c92a9a9201b107821889935a02b3e51f6b432ea84ed'
    'grpcio==1.41.0 --hash=sha256:b2de4e7b5a930be04a4d05c9f5fce7e9191217ccdc174b026c2a7928770dca9f'
    'h5py==2.10.0 --hash=sha256:769e141512b54dee14ec76ed354fcacfc7d97fea5a7646b709f7400cf1838630'
    'idna==3.2 --hash=sha256:14475042e284991034cb48e06f6851428fb14c4dc953acd9be9a5e95c7b6dd7a'
    'keras-preprocessing==1.1.2 --hash=sha256:7b82029b130ff61cc99b55f3bd27427df4838576838c5b2f65940e4fcec99a7b'
    'markdown==3.3.4 --hash=sha256:96c3ba1261de2f7547b46a00ea8463832c921d3f9d6aba3f255a6f71386db20c'
    'numpy==1.18.5 --hash=sha256:3dd6823d3e04b5f223e3e265b4a1eae15f104f4366edd409e5a5e413a98f911f'
    'oauthlib==3.1.1 --hash=sha256:42bf6354c2ed8c6acb54d971fce6f88193d97297e18602a3a886603f9d7730cc'
    'opt-einsum==3.3.0 --hash=sha256:2455e59e3947d3c275477df7f5205b30635e266fe6dc300e3d9f9646bfcea147'
    'protobuf==3.17.3 --hash=sha256:2bfb815216a9cd9faec52b16fd2bfa68437a44b67c56bee59bc3926522ecb04e --hash=sha256:ebcb546f10069b56dc2e3da35e003a02076aaa377caf8530fe9789570984a8d2'
    'pyasn1==0.4.8 --hash=sha256:39c7e2ec30515947ff4e87fb6f456dfc6e84857d34be479c9d4a4ba4bf46aa5d'
    'pyasn1-modules==0.2.8 --hash=sha256:a50b808ffeb97cb3601dd25981f6b016cbb3d31fbf57a8b8a87428e6158d0c74'
    'requests==2.26.0 --hash=sha256:6c1246513ecd5ecd4528a0906f910e8f0f9c6b8ec72030dc9fd154dc1a6efd24'
    'requests-oauthlib==1.3.0 --hash=sha256:7f71572defaecd16372f9006f33c2ec8c077c3cfa6f5911a9a90202beb513f3d'
    'rsa==4.7.2 --hash=sha256:78f9a9bf4e7be0c5ded4583326e7461e3a3c5aae24073648b4bdfa797d78c9d2'
    'setuptools==58.1.0 --hash=sha256:7324fd4b66efa05cdfc9c89174573a4410acc7848f318cc0565c7fb659dfdc81'
    'six==1.16.0 --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254'
    'tensorboard==2.6.0 --hash=sha256:f7dac4cdfb52d14c9e3f74585ce2aaf8e6203620a864e51faf84988b09f7bbdb'
    'tensorboard-data-server==0.6.1 --hash=sha256:809fe9887682d35c1f7d1f54f0f40f98bb1f771b14265b453ca051e2ce58fca7'
    'tensorboard-plugin-wit==1.8.0 --hash=sha256:2a80d1c551d741e99b2f197bb915d8a133e24adb8da1732b840041860f91183a'
    'tensorflow==2.3.4 --hash=sha256:48135c40a6c4a01eed131bc11b9b2e44cd0c2e78adb85f3b4bd51d730af06e8e'
    'tensorflow-estimator==2.3.0 --hash=sha256:b75e034300ccb169403cf2695adf3368da68863aeb0c14c3760064c713d5c486'
    'termcolor==1.1.0 --hash=sha256:1d6d69ce66211143803fbc56652b41d73b4a400a2891d7bf7a1cdf4c02de613b'
    'urllib3==1.26.7 --hash=sha256:c4fdf4019605b6e5423637e01bc9fe4daef873709a7973e195ceba0a62bbc844'
    'werkzeug==2.0.1 --hash=sha256:6c1ec500dcdba0baa27600f6a22f6333d8b662d22027ff9f6202e3367413caa8'
    'wheel==0.37.0 --hash=sha256:21014b2bd93c6d0034b6ba5d35e4eb284340e09d63c59aef6fc14b0f346146fd'
    'wrapt==1.12.1 --hash=sha256:b62ffa81fb85f4332a4f609cab4ac40709470da05643a082ec1eb88e6d9b97d7'
)
$PipPin = 'pip==23.0.1 --hash=sha256:236bcb61156d76c4b8a05821b988c7b8c35bf0da28a4b614e8d6ab5212c25c6f'

$InstallerUrl = 'https://developer.download.nvidia.com/compute/cuda/10.1/Prod/local_installers/cuda_10.1.243_426.00_win10.exe'
# https://github.com/conda-forge/conda-forge-ci-setup-feedstock/blob/main/recipe/install_cuda.bat
$InstallerMd5 = 'b54cf32683f93e787321dcc2e692ff69'
$CudnnZipSha256 = ''
$InstallerComponents = @('cudart_10.1', 'cublas_10.1', 'cufft_10.1', 'curand_10.1', 'cusolver_10.1', 'cusparse_10.1', 'cupti_10.1')
$ToolkitDllDirs = @('bin', 'extras\CUPTI\lib64')
$DownloadSpaceGb = 6  # the installer and what it unpacks into %TEMP%
$VenvSpaceGb = 4  # the installed packages and pip's cache of their downloads
$Copies = @(
)
# The exit codes (the help above lists the same table); 1 is PowerShell's own, for a parameter it refused.
$Exit = @{
    Ready = 0
    PowerShell = 1
    BadArgument = 2
    NotWindows = 3
    NoPython = 4
    NoVcRuntime = 5
    NoDriver = 6
    VenvFailed = 7
    CudaRuntime = 8
    NotInstalled = 9
    Unexpected = 10
    PathTooLong = 11
    ChecksFailed = 12
    VenvInUse = 13
    NoSpace = 14
}
$Utf8 = New-Object -TypeName Text.UTF8Encoding -ArgumentList $false
$VenvCreated = $false   # this run made the venv folder: a failure before the install is complete removes it
$VenvComplete = $false

function Write-Step {
    param([Parameter(Mandatory = $true)][string]$Message)
    Write-Information -MessageData "tfenv-windows: $Message" -InformationAction Continue
}

function Stop-Setup {
    # One line saying what is wrong and what to do, and the documented exit code.
    param([Parameter(Mandatory = $true)][ValidateRange(2, 255)][int]$Code, [Parameter(Mandatory = $true)][string]$Message)
    [Console]::Error.WriteLine("tfenv-windows: error: $Message")
    Remove-CreatedVenv
    exit $Code
}

function Remove-CreatedVenv {
    # A venv this run created and did not finish is removed, so the next run starts clean.
    if ($script:VenvCreated -and -not $script:VenvComplete -and (Test-Path -LiteralPath $script:Venv)) {
        $script:VenvCreated = $false
        [Console]::Error.WriteLine("tfenv-windows: removing the unfinished venv $($script:Venv)")
        Remove-Item -LiteralPath $script:Venv -Recurse -Force -ErrorAction SilentlyContinue
    }
}

function Invoke-Utf8 {
    # Python writes to a pipe in the ANSI code page and PowerShell decodes it with the console's (OEM) one:
    # C:\Users\<name> came back garbled, and a name outside the ANSI code page killed the child
    # (UnicodeEncodeError). For the call, the child writes UTF-8 and PowerShell reads UTF-8; both restored after.
    param([Parameter(Mandatory = $true)][scriptblock]$Action)
    $savedIo = $env:PYTHONIOENCODING
    $savedUtf8 = $env:PYTHONUTF8
    $savedConsole = $null
    try {
        $env:PYTHONIOENCODING = 'utf-8'
        $env:PYTHONUTF8 = '1'
        try {
            $savedConsole = [Console]::OutputEncoding
            [Console]::OutputEncoding = $Utf8
        } catch {
            $savedConsole = $null  # a host without a console (ISE) refuses; the probe's output is ASCII anyway
        }
        & $Action
    } finally {
        if ($savedConsole) {
            [Console]::OutputEncoding = $savedConsole
        }
        $env:PYTHONIOENCODING = $savedIo
        $env:PYTHONUTF8 = $savedUtf8
    }
}

function Invoke-Native {
    # Runs a program and returns its exit code and output lines, decoded as UTF-8. Windows PowerShell 5.1
    # turns a native program's stderr into errors, which 'Stop' would make terminating: a local Continue.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Arguments = @())
    Invoke-Utf8 -Action {
        $ErrorActionPreference = 'Continue'
        $output = & $FilePath @Arguments 2>&1
        [pscustomobject]@{ ExitCode = $LASTEXITCODE; Lines = @($output | ForEach-Object { "$_" }) }
    }
}

function ConvertTo-CommandLine {
    # Start-Process joins its arguments with spaces and quotes nothing: quote each one the way the C runtime
    # of python.exe and curl.exe splits a command line (backslashes before a quote are doubled).
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

function Invoke-Console {
    # Runs a program on this console, not behind a pipe, so pip's and curl's progress shows; returns the exit code.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Arguments = @(), [string]$WorkingDirectory = '')
    $parameters = @{ FilePath = $FilePath; ArgumentList = (ConvertTo-CommandLine -Arguments $Arguments); NoNewWindow = $true; Wait = $true; PassThru = $true }
    if ($WorkingDirectory) {
        $parameters.WorkingDirectory = $WorkingDirectory
    }
    $process = Invoke-Utf8 -Action { Start-Process @parameters }
    return $process.ExitCode
}

function Write-Utf8File {
    # UTF-8 without a BOM on 5.1 and 7 alike (5.1's -Encoding UTF8 writes a BOM, which breaks a .pth line).
    # Returns $true when the file changed.
    param([Parameter(Mandatory = $true)][string]$Path, [Parameter(Mandatory = $true)][string]$Text)
    if ((Test-Path -LiteralPath $Path) -and ([IO.File]::ReadAllText($Path) -ceq $Text)) {
        return $false
    }
    [IO.File]::WriteAllText($Path, $Text, $Utf8)
    return $true
}

function Get-System32 {
    # A 32-bit PowerShell on 64-bit Windows sees SysWOW64 as System32; Sysnative is the real one.
    if ([Environment]::Is64BitOperatingSystem -and -not [Environment]::Is64BitProcess) {
        return (Join-Path -Path $env:SystemRoot -ChildPath 'Sysnative')
    }
    return (Join-Path -Path $env:SystemRoot -ChildPath 'System32')
}

function Get-ProgramFiles {
    # In a 32-bit PowerShell $env:ProgramFiles is 'Program Files (x86)'; ProgramW6432 is the 64-bit one.
    if ($env:ProgramW6432) {
        return $env:ProgramW6432
    }
    return $env:ProgramFiles
}

function Assert-FreeSpace {
    # Stops before a long download or install that would fill the disk halfway through.
    param([Parameter(Mandatory = $true)][string]$Path, [Parameter(Mandatory = $true)][double]$NeedGb, [Parameter(Mandatory = $true)][string]$What)
    try {
        $drive = New-Object -TypeName IO.DriveInfo -ArgumentList ([IO.Path]::GetPathRoot($Path))
        $freeGb = [math]::Round($drive.AvailableFreeSpace / 1073741824, 1)  # bytes per GB
    } catch {
        return  # a network path: Windows cannot say, pip and the installer will
    }
    if ($freeGb -lt $NeedGb) {
        Stop-Setup -Code $Exit.NoSpace -Message "$What needs about $NeedGb GB on $($drive.Name), which has $freeGb GB free: free some space (or pass -Venv on another drive), then run this script again"
    }
}

function Assert-Windows {
    if (-not [Environment]::Is64BitOperatingSystem) {
        Stop-Setup -Code $Exit.NotWindows -Message 'this is 32-bit Windows; TensorFlow needs 64-bit Windows 10 or 11'
    }
    $version = [Environment]::OSVersion.Version
    if ($version.Major -lt 10) {
        Stop-Setup -Code $Exit.NotWindows -Message "Windows $version is too old: TensorFlow's GPU build needs 64-bit Windows 10 or 11"
    }
    Write-Step "ok: 64-bit Windows $version"
}

# One JSON line with ASCII escapes (readable whatever the code pages), about one python.exe. No double
# quotes in the code: Windows PowerShell 5.1 does not escape them when it passes arguments to a program.
$PythonProbe = @'
import json, os, struct, sys
conda = []
for where in sorted(set([sys.prefix, getattr(sys, 'base_prefix', sys.prefix)])):
    if os.path.isdir(os.path.join(where, 'conda-meta')):
        conda.append('conda-meta in ' + where)
for word in ('Anaconda', 'conda-forge', 'Continuum'):
    if word in sys.version:
        conda.append(word + ' in sys.version')
active = os.environ.get('CONDA_PREFIX', '')
if active and os.path.normcase(os.path.abspath(active)) == os.path.normcase(os.path.abspath(sys.prefix)):
    conda.append('CONDA_PREFIX is its prefix')
info = dict(version='%d.%d' % sys.version_info[:2], bits=struct.calcsize('P') * 8, executable=sys.executable,
            prefix=sys.prefix, conda=conda)
print(json.dumps(info))
'@

function Get-PythonInfo {
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Prefix = @())
    $result = Invoke-Native -FilePath $FilePath -Arguments ($Prefix + @('-c', $PythonProbe))
    $line = @($result.Lines | Where-Object { $_ -like '{*}' }) | Select-Object -Last 1
    if ($result.ExitCode -ne 0 -or -not $line) {
        return $null
    }
    return ($line | ConvertFrom-Json)
}

function Test-StorePython {
    param([Parameter(Mandatory = $true)]$Info)
    return (($Info.executable + '|' + $Info.prefix) -match 'WindowsApps|PythonSoftwareFoundation\.Python')
}

function Get-PythonRefusal {
    # Why a Python that runs is not taken, or '' when it is right.
    param([Parameter(Mandatory = $true)]$Info)
    if (Test-StorePython -Info $Info) {
        return 'the Microsoft Store Python, refused: it runs as a packaged app whose writes under AppData (where the venv goes) are redirected into its private folder, and the locks are tested for the python.org build'
    }
    $conda = @($Info.conda | Where-Object { $_ })
    if ($conda.Count -gt 0) {
        return "conda's Python ($($conda -join '; ')), refused: the locks are resolved and tested for python.org's build, and conda's own DLLs (Library\bin) would be found before the venv's"
    }
    if ($Info.version -ne $PythonLine -or $Info.bits -ne 64) {
        return "Python $($Info.version), $($Info.bits)-bit"
    }
    return ''
}

function Get-PythonCandidates {
    if ($Python) {
        return , @(, @($Python))
    }
    $candidates = @()
    $launcher = Get-Command -Name 'py.exe' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
    if ($launcher) {
        $candidates += , @($launcher.Path, "-$PythonLine")
    }
    foreach ($found in @(Get-Command -Name 'python.exe' -CommandType Application -All -ErrorAction SilentlyContinue)) {
        $candidates += , @($found.Path)
    }
    return , $candidates
}

function Find-Python {
    $install = "install Python 3.8.10 (Windows installer (64-bit)) from https://www.python.org/downloads/release/python-3810/, then run this script again from a plain PowerShell (powershell -NoProfile, no conda activate), or pass -Python C:\path\to\python.exe"
    if ($env:CONDA_PREFIX) {
        Write-Step "warning: a conda environment is active (CONDA_PREFIX=$($env:CONDA_PREFIX)): its DLL folders on PATH can shadow the venv's; the checks at the end say if they do"
    }
    $seen = @()
    foreach ($candidate in (Get-PythonCandidates)) {
        # A WindowsApps python.exe may be only the Store's alias: run with arguments, it just fails (9009).
        $info = Get-PythonInfo -FilePath $candidate[0] -Prefix @($candidate | Select-Object -Skip 1)
        if (-not $info) {
            $seen += "$($candidate -join ' ') (does not run)"
            continue
        }
        $refusal = Get-PythonRefusal -Info $info
        if (-not $refusal) {
            Write-Step "ok: Python $($info.version) 64-bit at $($info.executable)"
            return $info.executable
        }
        if ($Python) {
            Stop-Setup -Code $Exit.NoPython -Message "$($info.executable) is $($refusal): $install"
        }
        $seen += "$($info.executable) ($refusal)"
    }
    $what = 'none found'
    if ($seen.Count -gt 0) {
        $what = 'found ' + ($seen -join '; ')
    }
    Stop-Setup -Code $Exit.NoPython -Message "$EnvName's Windows lock is for 64-bit Python $PythonLine from python.org ($what): $install"
}

function Assert-VcRuntime {
    $system = Get-System32
    $missing = @('msvcp140.dll', 'msvcp140_1.dll' | Where-Object { -not (Test-Path -LiteralPath (Join-Path -Path $system -ChildPath $_)) })
    if ($missing.Count -gt 0) {
        Stop-Setup -Code $Exit.NoVcRuntime -Message "the Visual C++ 2015-2022 x64 runtime is missing ($($missing -join ', ') not in $system): install vc_redist.x64.exe from https://aka.ms/vs/17/release/vc_redist.x64.exe, then run this script again"
    }
    Write-Step "ok: Visual C++ runtime (msvcp140.dll, msvcp140_1.dll)"
}

function Assert-NvidiaDriver {
    $candidates = @(
        (Join-Path -Path (Get-System32) -ChildPath 'nvidia-smi.exe'),
        (Join-Path -Path (Get-ProgramFiles) -ChildPath 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    $smi = $candidates | Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1
    if (-not $smi) {
        Stop-Setup -Code $Exit.NoDriver -Message "nvidia-smi.exe not found, so no NVIDIA driver is installed: install the NVIDIA Windows driver $MinimumDriver or newer for your GPU, then run this script again"
    }
    $result = Invoke-Native -FilePath $smi -Arguments @('--query-gpu=driver_version,name', '--format=csv,noheader')
    $line = $result.Lines | Where-Object { $_ -match '^\s*\d+\.\d+' } | Select-Object -First 1
    if ($result.ExitCode -ne 0 -or -not $line) {
        Stop-Setup -Code $Exit.NoDriver -Message "nvidia-smi found no GPU ($($result.Lines -join ' ')): check the GPU in Device Manager and reinstall the NVIDIA driver ($MinimumDriver or newer)"
    }
    $fields = @($line -split ',', 2)
    $driver = [version]($fields[0].Trim())
    $gpu = 'GPU'
    if ($fields.Count -gt 1) {
        $gpu = $fields[1].Trim()
    }
    if ($driver -lt $MinimumDriver) {
        Stop-Setup -Code $Exit.NoDriver -Message "the NVIDIA driver is $driver; TensorFlow $TensorFlow's CUDA 10.1 build needs $MinimumDriver or newer: update the driver, then run this script again"
    }
    Write-Step "ok: NVIDIA driver $driver, $gpu"
}

function Assert-PathLength {
    # TensorFlow's wheel holds paths of up to 170 characters; without long-path support Windows stops
    # at 260, and pip would fail halfway through.
    $site = Join-Path -Path $Venv -ChildPath 'Lib\site-packages'
    $needed = $site.Length + 1 + 170
    if ($needed -lt 260) {
        return
    }
    $key = Get-ItemProperty -LiteralPath 'HKLM:\SYSTEM\CurrentControlSet\Control\FileSystem' -ErrorAction SilentlyContinue
    if ($key -and ($key.PSObject.Properties.Name -contains 'LongPathsEnabled') -and $key.LongPathsEnabled -eq 1) {
        Write-Step "ok: long paths enabled ($Venv needs $needed characters)"
        return
    }
    Stop-Setup -Code $Exit.PathTooLong -Message "TensorFlow's files under $site need paths of $needed characters, over Windows' 260 without long-path support: pass a shorter -Venv (such as C:\tfenv\$EnvName), or enable long paths in an administrator PowerShell (New-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\FileSystem' -Name LongPathsEnabled -Value 1 -PropertyType DWORD -Force) and run this script again"
}

function Get-VenvPython {
    return (Join-Path -Path $Venv -ChildPath 'Scripts\python.exe')
}

function Get-TfenvDir {
    return (Join-Path -Path $Venv -ChildPath 'tfenv')
}

function Assert-VenvUsable {
    # An existing venv is trusted only when its Python is the right one and its pip runs: a venv cut short
    # (Ctrl-C, an antivirus) has a python.exe and no working pip. Reads only (-B: no __pycache__ written).
    $venvPython = Get-VenvPython
    $fix = "remove it (Remove-Item -Recurse -Force -LiteralPath '$Venv') or pass -Venv with another folder, then run this script again"
    $info = Get-PythonInfo -FilePath $venvPython -Prefix @('-B')
    if (-not $info) {
        Stop-Setup -Code $Exit.VenvFailed -Message "the venv $Venv does not start (its base Python was removed or upgraded?): $fix"
    }
    $refusal = Get-PythonRefusal -Info $info
    if ($refusal) {
        Stop-Setup -Code $Exit.VenvFailed -Message "the venv $Venv is $($refusal), not python.org's $PythonLine (64-bit): $fix"
    }
    $pip = Invoke-Native -FilePath $venvPython -Arguments @('-B', '-m', 'pip', '--version', '--disable-pip-version-check')
    if ($pip.ExitCode -ne 0) {
        Stop-Setup -Code $Exit.VenvFailed -Message "the venv $Venv is unfinished or broken (its pip does not run: $(@($pip.Lines) | Select-Object -Last 1)): $fix"
    }
    Write-Step "ok: venv $Venv (Python $($info.version), $(@($pip.Lines) | Select-Object -First 1))"
}

function New-Venv {
    param([Parameter(Mandatory = $true)][string]$BasePython)
    if (Test-Path -LiteralPath (Get-VenvPython)) {
        Assert-VenvUsable
        return
    }
    if ($DryRun) {
        Write-Step "would create the venv: $BasePython -m venv $Venv"
        return
    }
    Write-Step "creating the venv $Venv"
    $script:VenvCreated = -not (Test-Path -LiteralPath $Venv)
    $result = Invoke-Native -FilePath $BasePython -Arguments @('-m', 'venv', $Venv)
    if ($result.ExitCode -ne 0) {
        Stop-Setup -Code $Exit.VenvFailed -Message "'$BasePython -m venv $Venv' failed ($($result.Lines -join ' ')): check that the folder is writable, or pass -Venv with another folder"
    }
}

function Assert-VenvNotInUse {
    # A Jupyter kernel, an IDE or a Python program that has the venv's DLLs loaded makes pip fail halfway
    # ([WinError 32]): a loaded DLL or .pyd cannot be opened for writing, so try that first.
    $folders = @(@($HookDirs) + @('Lib\site-packages\tensorflow\python') | ForEach-Object { Join-Path -Path $Venv -ChildPath $_ } | Where-Object { Test-Path -LiteralPath $_ })
    foreach ($folder in $folders) {
        foreach ($file in @(Get-ChildItem -LiteralPath $folder -File | Where-Object { $_.Extension -in @('.dll', '.pyd') })) {
            try {
                $stream = [IO.File]::Open($file.FullName, 'Open', 'ReadWrite', 'None')
                $stream.Dispose()
            } catch {
                Stop-Setup -Code $Exit.VenvInUse -Message "$($file.FullName) is in use (or read-only): close Jupyter, IDEs and Python programs that use the venv $Venv, then run this script again"
            }
        }
    }
}

function Get-PipLog {
    return (Join-Path -Path (Get-TfenvDir) -ChildPath 'pip.log')
}

function Read-PipLog {
    $log = Get-PipLog
    if (Test-Path -LiteralPath $log) {
        return @(Get-Content -LiteralPath $log -Encoding UTF8)
    }
    return @()
}

function Invoke-Pip {
    # pip install --no-deps --require-hashes -r FILE on its own console; its log (pip --log, for
    # Get-HashMismatch) starts afresh for each run.
    param([Parameter(Mandatory = $true)][string]$Python, [Parameter(Mandatory = $true)][string]$RequirementsFile)
    Remove-Item -LiteralPath (Get-PipLog) -Force -ErrorAction SilentlyContinue
    return (Invoke-Console -FilePath $Python -Arguments @('-m', 'pip', 'install', '--disable-pip-version-check', '--no-deps', '--require-hashes', '--log', (Get-PipLog), '-r', $RequirementsFile))
}

function Get-HashMismatch {
    # One line for pip's refusal of a file whose sha256 is not the lock's, or '' when pip failed otherwise.
    # pip's log puts a timestamp before every line.
    param([string[]]$Lines = @())
    $seen = $false
    foreach ($line in $Lines) {
        if ($line -match 'DO NOT MATCH THE HASHES') {
            $seen = $true
        } elseif ($seen -and $line -match '^(?:\d{4}-\d\d-\d\dT\S+ )?\s+([A-Za-z0-9._-]+)==(\S+)(?: from ([a-z+]+)://(?:[^@/\s]*@)?([^/\s]+))?') {
            $from = if ($Matches[4]) { $Matches[4] } else { 'the index' }
            return "$($Matches[1]) $($Matches[2]) from $from is not the file the lock names (its sha256 differs): a mirror or proxy changed it, and nothing was installed. Use another index (PIP_INDEX_URL) and tell whoever runs this one"
        }
    }
    return ''
}

function Install-Packages {
    $venvPython = Get-VenvPython
    if ($DryRun) {
        Write-Step "would install with pip --no-deps --require-hashes (index: PIP_INDEX_URL or pip's configuration):"
        $Requirements | ForEach-Object { Write-Step "    $_" }
        return
    }
    $installed = Invoke-Native -FilePath $venvPython -Arguments @('-m', 'pip', 'list', '--format=freeze', '--disable-pip-version-check')
    $have = @{}
    foreach ($item in $installed.Lines) {
        $have[($item.ToLowerInvariant() -replace '[-_.]+', '-')] = $true
    }
    # A requirement line is 'name==version --hash=sha256:...': pip list names the first field.
    $missing = @($Requirements | Where-Object { -not $have.ContainsKey((($_ -split ' ')[0].ToLowerInvariant() -replace '[-_.]+', '-')) })
    if ($missing.Count -eq 0) {
        Write-Step "ok: all $($Requirements.Count) pinned packages installed (unchanged)"
        return
    }
    Assert-FreeSpace -Path $Venv -NeedGb $VenvSpaceGb -What "installing $($missing.Count) packages into $Venv"
    $requirementsFile = Join-Path -Path (Get-TfenvDir) -ChildPath 'requirements.txt'
    $null = New-Item -ItemType Directory -Force -Path (Get-TfenvDir)
    $null = Write-Utf8File -Path $requirementsFile -Text (($Requirements -join "`n") + "`n")
    Write-Step "installing $($missing.Count) of $($Requirements.Count) pinned packages (pip honours PIP_INDEX_URL and PIP_CERT)"
    $pipFile = Join-Path -Path (Get-TfenvDir) -ChildPath 'pip-requirement.txt'
    $null = Write-Utf8File -Path $pipFile -Text ($PipPin + "`n")
    $code = Invoke-Pip -Python $venvPython -RequirementsFile $pipFile
    if ($code -eq 0) {
        $code = Invoke-Pip -Python $venvPython -RequirementsFile $requirementsFile
    }
    if ($code -ne 0) {
        $mismatch = Get-HashMismatch -Lines (Read-PipLog)
        if ($mismatch) {
            Stop-Setup -Code $Exit.VenvFailed -Message $mismatch
        }
        Stop-Setup -Code $Exit.VenvFailed -Message "pip failed (exit $code; its message is above): behind a proxy or with a mirror, set PIP_INDEX_URL (and PIP_CERT for a private CA bundle); '[WinError 32]' means a program is using the venv: close it, then run this script again"
    }
    $check = Invoke-Native -FilePath $venvPython -Arguments @('-m', 'pip', 'check', '--disable-pip-version-check')
    if ($check.ExitCode -ne 0) {
        Stop-Setup -Code $Exit.VenvFailed -Message "pip check found conflicts ($($check.Lines -join '; ')): remove $Venv and run this script again"
    }
}

function Test-Administrator {
    $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
    return (New-Object -TypeName Security.Principal.WindowsPrincipal -ArgumentList $identity).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}

function Save-Download {
    # Resumable: curl.exe (in System32 since Windows 10 1803) continues a partial file with -C -; older
    # systems fall back to Invoke-WebRequest with TLS 1.2 (Windows PowerShell 5.1 may offer only TLS 1.0).
    param([Parameter(Mandatory = $true)][string]$Url, [Parameter(Mandatory = $true)][string]$Folder, [Parameter(Mandatory = $true)][string]$FileName)
    $target = Join-Path -Path $Folder -ChildPath $FileName
    $partial = "$target.part"
    $curl = Join-Path -Path (Get-System32) -ChildPath 'curl.exe'
    if (Test-Path -LiteralPath $curl) {
        # Run in the folder with a bare ASCII name: curl.exe reads its arguments in the ANSI code page,
        # which cannot spell every user folder; the working folder is passed as Unicode.
        $code = Invoke-Console -FilePath $curl -WorkingDirectory $Folder -Arguments @('--fail', '--location', '--retry', '3', '--continue-at', '-', '--output', "$FileName.part", $Url)
        if ($code -ne 0) {
            Stop-Setup -Code $Exit.CudaRuntime -Message "downloading $Url failed (curl.exe exit $code, its message is above; behind a proxy set HTTPS_PROXY, curl.exe does not read Windows' proxy settings): run this script again to resume ($partial keeps what arrived; delete it to free the space), or download the file yourself and pass -CudaInstaller PATH"
        }
    } else {
        [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
        try {
            Invoke-WebRequest -UseBasicParsing -Uri $Url -OutFile $partial
        } catch {
            Remove-Item -LiteralPath $partial -Force -ErrorAction SilentlyContinue
            Stop-Setup -Code $Exit.CudaRuntime -Message "downloading $Url failed ($($_.Exception.Message)): download it yourself and pass -CudaInstaller PATH"
        }
    }
    Move-Item -LiteralPath $partial -Destination $target -Force
    return $target
}

function Get-CudaInstaller {
    # -CudaInstaller, or NVIDIA's installer downloaded to %TEMP%\tfenv. Returns the path and whether this run
    # downloaded it (then it is removed after it ran: 2.5 GB).
    if ($CudaInstaller) {
        if (-not (Test-Path -LiteralPath $CudaInstaller -PathType Leaf)) {
            Stop-Setup -Code $Exit.BadArgument -Message "-CudaInstaller $CudaInstaller is not a file: pass the path of cuda_10.1.243_426.00_win10.exe"
        }
        return [pscustomobject]@{ Path = $CudaInstaller; Downloaded = $false }
    }
    $downloads = Join-Path -Path $env:TEMP -ChildPath 'tfenv'
    $null = New-Item -ItemType Directory -Force -Path $downloads
    $installer = Join-Path -Path $downloads -ChildPath 'cuda_10.1.243_426.00_win10.exe'
    if (-not (Test-Path -LiteralPath $installer)) {
        Assert-FreeSpace -Path $downloads -NeedGb $DownloadSpaceGb -What "NVIDIA's CUDA 10.1.243 installer (about 2.5 GB, and as much unpacked)"
        Write-Step "downloading $InstallerUrl (about 2.5 GB) to $downloads"
        $installer = Save-Download -Url $InstallerUrl -Folder $downloads -FileName 'cuda_10.1.243_426.00_win10.exe'
    }
    return [pscustomobject]@{ Path = $installer; Downloaded = $true }
}

function Test-FileChecksum {
    # Before anything runs from a download: its checksum against the known one, or, where none is known,
    # its SHA-256 printed for the user to compare, and a yes to go on.
    param([Parameter(Mandatory = $true)][string]$Path, [string]$Algorithm = 'SHA256', [string]$Expected = '', [Parameter(Mandatory = $true)][string]$What)
    $actual = (Get-FileHash -LiteralPath $Path -Algorithm $Algorithm).Hash.ToLowerInvariant()
    if ($Expected) {
        if ($actual -ne $Expected.ToLowerInvariant()) {
            Stop-Setup -Code $Exit.CudaRuntime -Message "$Path is not $What ($Algorithm $actual, expected $Expected): delete it, download it again from NVIDIA, then run this script again; nothing was run"
        }
        Write-Step "ok: $Path has the $Algorithm of $What"
        return
    }
    $sha = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
    Write-Step "no published checksum is known for $What; the SHA-256 of $Path is $sha"
    if ($DryRun) {
        return
    }
    $answer = Read-Host -Prompt 'compare it with a copy you trust; type yes to use this file'
    if ($answer -ne 'yes') {
        Stop-Setup -Code $Exit.CudaRuntime -Message "$Path was not confirmed: nothing was run"
    }
}

function Invoke-CudaInstaller {
    param([Parameter(Mandatory = $true)]$Installer, [Parameter(Mandatory = $true)][string]$Cudart)
    Test-FileChecksum -Path $Installer.Path -Algorithm 'MD5' -Expected $InstallerMd5 -What "NVIDIA's cuda_10.1.243_426.00_win10.exe"
    Write-Step "running NVIDIA's installer silently with the runtime components only (no driver, no Visual Studio integration)"
    $code = Invoke-Console -FilePath $Installer.Path -Arguments (@('-s') + $InstallerComponents + @('-n'))
    if ($code -ne 0 -or -not (Test-Path -LiteralPath $Cudart)) {
        Stop-Setup -Code $Exit.CudaRuntime -Message "NVIDIA's installer exited with $code and $Cudart is missing: run $($Installer.Path) yourself, choose Custom, select only the CUDA runtime libraries (no driver, no Visual Studio integration), then run this script again"
    }
    if ($Installer.Downloaded) {
        Remove-Item -LiteralPath $Installer.Path -Force -ErrorAction SilentlyContinue
    }
}

function Copy-CudaDlls {
    param([Parameter(Mandatory = $true)][string]$Toolkit, [Parameter(Mandatory = $true)][string]$DllDir)
    foreach ($sub in $ToolkitDllDirs) {
        $from = Join-Path -Path $Toolkit -ChildPath $sub
        if (Test-Path -LiteralPath $from) {
            Get-ChildItem -LiteralPath $from -Filter '*.dll' | Copy-Item -Destination $DllDir -Force
        }
    }
    $unpacked = Join-Path -Path (Get-TfenvDir) -ChildPath 'cudnn-unpacked'
    Expand-Archive -LiteralPath $CudnnZip -DestinationPath $unpacked -Force
    $cudnnDlls = @(Get-ChildItem -LiteralPath $unpacked -Recurse -Filter 'cudnn*.dll')
    if ($cudnnDlls.Count -eq 0) {
        Remove-Item -LiteralPath $unpacked -Recurse -Force
        Stop-Setup -Code $Exit.CudaRuntime -Message "$CudnnZip has no cudnn*.dll: download cudnn-10.1-windows10-x64-v7.6.5.32.zip (the Windows zip, not the Linux archive)"
    }
    $cudnnDlls | Copy-Item -Destination $DllDir -Force
    Remove-Item -LiteralPath $unpacked -Recurse -Force
}

function Install-CudaRuntime {
    # The guided route: NVIDIA's installer (runtime components only) and the cuDNN zip, copied into the venv.
    $dllDir = Join-Path -Path $Venv -ChildPath 'tfenv\cuda\bin'
    $present = @('cudart64_101.dll', 'cublas64_10.dll', 'cufft64_10.dll', 'curand64_10.dll', 'cusolver64_10.dll', 'cusparse64_10.dll', 'cudnn64_7.dll' | Where-Object { Test-Path -LiteralPath (Join-Path -Path $dllDir -ChildPath $_) })
    if ($present.Count -eq 7) {
        Write-Step "ok: CUDA 10.1.243 and cuDNN DLLs in $dllDir (unchanged)"
        return
    }
    if (-not $CudnnZip) {
        Stop-Setup -Code $Exit.CudaRuntime -Message "download cudnn-10.1-windows10-x64-v7.6.5.32.zip (cuDNN 7.6.5 for CUDA 10.1; NVIDIA requires a free login) from https://developer.nvidia.com/rdp/cudnn-archive, then run this script again with -CudnnZip PATH"
    }
    if (-not (Test-Path -LiteralPath $CudnnZip -PathType Leaf)) {
        Stop-Setup -Code $Exit.BadArgument -Message "-CudnnZip $CudnnZip is not a file: pass the path of cudnn-10.1-windows10-x64-v7.6.5.32.zip"
    }
    # Checked first: a wrong zip stops the script before NVIDIA's installer runs as administrator.
    $expectedZip = if ($CudnnSha256) { $CudnnSha256 } else { $CudnnZipSha256 }
    Test-FileChecksum -Path $CudnnZip -Expected $expectedZip -What 'cudnn-10.1-windows10-x64-v7.6.5.32.zip'
    $toolkit = Join-Path -Path (Get-ProgramFiles) -ChildPath 'NVIDIA GPU Computing Toolkit\CUDA\v10.1'
    $cudart = Join-Path -Path $toolkit -ChildPath 'bin\cudart64_101.dll'
    if ($DryRun) {
        if (-not (Test-Path -LiteralPath $cudart)) {
            Write-Step "would download (resumable, to %TEMP%\tfenv) and run NVIDIA's installer silently: cuda_10.1.243_426.00_win10.exe -s $($InstallerComponents -join ' ') -n (administrator)"
        }
        Write-Step "would copy the DLLs of $toolkit ($($ToolkitDllDirs -join ', ')) and of $CudnnZip into $dllDir"
        return
    }
    if (-not (Test-Path -LiteralPath $cudart)) {
        if (-not (Test-Administrator)) {
            Stop-Setup -Code $Exit.CudaRuntime -Message "NVIDIA's CUDA 10.1.243 installer needs administrator rights: run this script again from an administrator PowerShell (right-click, Run as administrator)"
        }
        Invoke-CudaInstaller -Installer (Get-CudaInstaller) -Cudart $cudart
    }
    $null = New-Item -ItemType Directory -Force -Path $dllDir
    Copy-CudaDlls -Toolkit $toolkit -DllDir $dllDir
    Write-Step "copied the CUDA 10.1.243 and cuDNN DLLs into $dllDir"
}

function Install-Hook {
    $site = Join-Path -Path $Venv -ChildPath 'Lib\site-packages'
    $hook = Join-Path -Path $site -ChildPath $HookName
    if ($DryRun) {
        Write-Step "would write $hook (puts $($HookDirs -join ', ') on PATH at interpreter start)"
        return
    }
    if (Write-Utf8File -Path $hook -Text ($HookLine.Trim() + "`n")) {
        Write-Step "wrote $hook"
    } else {
        Write-Step "ok: $hook (unchanged)"
    }
}

function Copy-Dlls {
    foreach ($copy in $Copies) {
        $dir = Join-Path -Path $Venv -ChildPath $copy.Dir
        $from = Join-Path -Path $dir -ChildPath $copy.Source
        $to = Join-Path -Path $dir -ChildPath $copy.To
        if ($DryRun) {
            Write-Step "would copy $from to $to"
            continue
        }
        if (-not (Test-Path -LiteralPath $from)) {
            if ($copy.Optional) {
                Write-Step "warning: $from is missing, so $($copy.To) (the profiler's) is not provided"
                continue
            }
            Stop-Setup -Code $Exit.CudaRuntime -Message "$from is missing, so $($copy.To) cannot be provided: remove $Venv and run this script again"
        }
        if ((Test-Path -LiteralPath $to) -and ((Get-Item -LiteralPath $to).Length -eq (Get-Item -LiteralPath $from).Length)) {
            Write-Step "ok: $($copy.To) (unchanged)"
            continue
        }
        Copy-Item -LiteralPath $from -Destination $to -Force
        Write-Step "copied $($copy.Source) as $($copy.To)"
    }
}

$CheckProgram = @'
# tfenv's checks for tf23 on Windows, the image suite's: DLLs from the venv, versions, GPU, ops on /GPU:0.
import ctypes
import os
import sys

for stream in (sys.stdout, sys.stderr):
    if hasattr(stream, 'reconfigure'):  # a path the console cannot spell is escaped, never a crash
        stream.reconfigure(errors='backslashreplace')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')
WANT = ['cudart64_101.dll', 'cublas64_10.dll', 'cufft64_10.dll', 'curand64_10.dll', 'cusolver64_10.dll', 'cusparse64_10.dll', 'cudnn64_7.dll']
CUDNN_PARTS = []
OPTIONAL = ['cupti64_101.dll']
VC_RUNTIME = ['msvcp140.dll', 'msvcp140_1.dll']
VENV = os.path.normcase(os.path.realpath(sys.prefix))
failed = []


def report(ok, what, fix=''):
    print(('ok: ' if ok else 'FAIL: ') + what + ('' if ok or not fix else ' -> ' + fix), flush=True)
    if not ok:
        failed.append(what)


def load(name):
    # winmode=0: the standard search TF's LoadLibrary uses (PATH included); ctypes' default skips PATH.
    handle = ctypes.WinDLL(name, winmode=0)._handle
    buf = ctypes.create_unicode_buffer(32768)
    size = ctypes.windll.kernel32.GetModuleFileNameW(ctypes.c_void_p(handle), buf, 32768)
    return buf.value if size else '(no path)'


def in_venv(path):
    return os.path.normcase(os.path.realpath(path)).startswith(VENV + os.sep)


for name in VC_RUNTIME:
    try:
        report(True, name + ' loads from ' + load(name))
    except OSError as exc:
        report(False, name + ' does not load: ' + str(exc), 'install vc_redist.x64.exe (https://aka.ms/vs/17/release/vc_redist.x64.exe)')
# Every DLL TF loads, and the cuDNN parts cudnn64 loads at the first convolution, must come from the venv:
# a copy in System32 (as some guides say to make) or elsewhere on PATH would be found first.
for name in WANT + CUDNN_PARTS:
    try:
        path = load(name)
    except OSError as exc:
        report(False, name + ' does not load: ' + str(exc), 'run setup.ps1 again without -CheckOnly')
        continue
    report(in_venv(path), name + ' loads from ' + path,
           'not the venv copy: remove or rename ' + path + ' (or take its folder off PATH), then check again')
for name in OPTIONAL:
    try:
        path = load(name)
        print(('ok: ' if in_venv(path) else 'warning: ') + name + ' loads from ' + path + ' (the profiler only)')
    except OSError as exc:
        print('warning: ' + name + ' does not load (only the profiler needs it): ' + str(exc))

try:
    import tensorflow as tf
except Exception as exc:  # noqa: BLE001 - any import failure is the finding
    report(False, 'import tensorflow: ' + repr(exc), 'run setup.ps1 again; its DLL lines above say what is missing')
    sys.exit(1)

report(tf.__version__ == '2.3.4', 'TensorFlow ' + tf.__version__ + ' (want 2.3.4)',
       'remove the venv and run setup.ps1 again')
try:
    info = dict(tf.sysconfig.get_build_info())  # TF 2.3+
except AttributeError:
    from tensorflow.python.platform import build_info as bi  # TF 2.2
    info = {'cuda_version': getattr(bi, 'cuda_version_number', None),
            'cudnn_version': getattr(bi, 'cudnn_version_number', None), 'is_cuda_build': getattr(bi, 'is_cuda_build', None)}
# Windows builds say '64_112' and '64_8' (the DLL suffixes); compare the digits.
cuda = str(info.get('cuda_version')).replace('64_', '').replace('.', '')
cudnn = str(info.get('cudnn_version')).replace('64_', '').replace('.', '')
report(bool(info.get('is_cuda_build')) and cuda == '101' and cudnn.startswith('7'),
       'build info: CUDA ' + str(info.get('cuda_version')) + ', cuDNN ' + str(info.get('cudnn_version'))
       + ' (want CUDA 10.1, cuDNN 7)', 'this is not the GPU build of TensorFlow 2.3.4: remove the venv and run setup.ps1 again')

gpus = tf.config.list_physical_devices('GPU')
report(bool(gpus), 'GPUs: ' + (', '.join(d.name for d in gpus) or 'none'),
       'TensorFlow sees no GPU: check nvidia-smi and the DLL lines above')
if gpus:
    import numpy as np

    if hasattr(tf.config.experimental, 'enable_tensor_float_32_execution'):
        tf.config.experimental.enable_tensor_float_32_execution(False)  # TF32 (Ampere) rounds differently
    rng = np.random.RandomState(0)
    a = rng.rand(256, 256).astype('float32')
    b = rng.rand(256, 256).astype('float32')
    x = rng.rand(2, 32, 32, 3).astype('float32')
    k = rng.rand(3, 3, 3, 8).astype('float32')
    for op, run in (('matmul', lambda: tf.matmul(a, b)), ('Conv2D', lambda: tf.nn.conv2d(x, k, 1, 'SAME'))):
        try:
            with tf.device('/GPU:0'):
                g = run()
            with tf.device('/CPU:0'):
                c = run()
            diff = float(np.abs(g.numpy() - c.numpy()).max())
            report('GPU' in g.device and np.allclose(g.numpy(), c.numpy(), rtol=1e-4, atol=1e-3),
                   op + ' on ' + g.device + ' matches the CPU (max difference ' + format(diff, '.3g') + ')',
                   'a wrong or failed GPU result: update the NVIDIA driver')
        except Exception as exc:  # noqa: BLE001 - a failing op is the finding
            report(False, op + ' on /GPU:0: ' + repr(exc).splitlines()[0], 'the cuDNN/cuBLAS lines above say which DLL')
sys.exit(1 if failed else 0)
'@

function Invoke-Checks {
    $venvPython = Get-VenvPython
    if ($DryRun) {
        Write-Step "would run the checks with $venvPython"
        return 0
    }
    Write-Step 'checks: every DLL from inside the venv, TensorFlow, GPU'
    # Inline (-c) and -B (no __pycache__): the checks write nothing, so -CheckOnly changes nothing.
    return (Invoke-Console -FilePath $venvPython -Arguments @('-B', '-c', $CheckProgram))
}

function Initialize-Paths {
    if (-not $script:Venv) {
        $script:Venv = Join-Path -Path $env:LOCALAPPDATA -ChildPath "tfenv\$EnvName"
    }
    # Relative paths are relative to PowerShell's location (.NET's current directory can differ).
    $script:Venv = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($script:Venv)
    if ($script:CudnnZip) {
        $script:CudnnZip = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($script:CudnnZip)
    }
    if ($script:CudaInstaller) {
        $script:CudaInstaller = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($script:CudaInstaller)
    }
}

function Assert-Installed {
    # -CheckOnly: a missing or half-made venv is one clear line; nothing is created or written.
    if (-not (Test-Path -LiteralPath $Venv -PathType Container)) {
        Stop-Setup -Code $Exit.NotInstalled -Message "no venv at $Venv (the folder does not exist): run this script without -CheckOnly to install $EnvName, or pass -Venv with the folder you installed into"
    }
    if (-not (Test-Path -LiteralPath (Get-VenvPython))) {
        Stop-Setup -Code $Exit.NotInstalled -Message "$Venv is not a venv (no Scripts\python.exe): run this script without -CheckOnly to install $EnvName there, or pass -Venv"
    }
    Assert-VenvUsable
}

function Install-All {
    $basePython = Find-Python
    Assert-VcRuntime
    Assert-NvidiaDriver  # before anything is downloaded or created
    Assert-PathLength
    $existed = Test-Path -LiteralPath (Get-VenvPython)
    New-Venv -BasePython $basePython
    if ($existed -and -not $DryRun) {
        Assert-VenvNotInUse
    }
    Install-Packages
    Install-CudaRuntime
    Install-Hook
    Copy-Dlls
    $script:VenvComplete = $true
}

function Invoke-Setup {
    if ($CheckOnly -and $DryRun) {
        Stop-Setup -Code $Exit.BadArgument -Message '-CheckOnly and -DryRun exclude each other: pass one'
    }
    Initialize-Paths
    Assert-Windows
    if ($CheckOnly) {
        Assert-VcRuntime
        Assert-NvidiaDriver
        Assert-Installed
    } else {
        Install-All
    }
    $code = Invoke-Checks
    if ($code -ne 0) {
        Stop-Setup -Code $Exit.ChecksFailed -Message "the checks failed (the lines marked FAIL above say what to do); the installed venv $Venv is kept: -CheckOnly runs the checks again"
    }
    if (-not $DryRun) {
        Write-Step "ready: $(Get-VenvPython) (activate: $Venv\Scripts\Activate.ps1; Jupyter kernels and IDEs can use that python.exe directly)"
    }
}

try {
    Invoke-Setup
} catch {
    Stop-Setup -Code $Exit.Unexpected -Message "unexpected error: $($_.Exception.Message) (at line $($_.InvocationInfo.ScriptLineNumber)): please report it with this line"
} finally {
    Remove-CreatedVenv  # also after Ctrl-C, which skips the catch
}
exit $Exit.Ready
