<#
.SYNOPSIS
    Installs tfenv's tf23 environment natively on Windows: TensorFlow 2.3.4 with the GPU, in a venv.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv windows tf23`: edit builder/templates/windows/, not this file.
    Runs under Windows PowerShell 5.1 and PowerShell 7 on 64-bit Windows 10 or 11. Checks, in order:
    64-bit Windows 10/11; a python.org Python 3.8 (64-bit; the Microsoft Store Python is refused);
    the Visual C++ 2015-2022 x64 runtime; the NVIDIA driver 418.96 or newer (nvidia-smi).
    Then (guided: there are no pip wheels for CUDA 10.1) it creates the venv, installs the
    pinned packages, runs NVIDIA's CUDA 10.1.243 installer silently with the runtime components only
    (no driver, no Visual Studio integration; this step needs an administrator PowerShell), copies the
    CUDA DLLs and those of the cuDNN zip you downloaded into the venv (tfenv\cuda\bin), and
    writes a .pth hook that puts that folder on PATH whenever the venv's python.exe starts.
    Last it runs the checks: every DLL TensorFlow loads opens, the TF version and build, the GPU is
    listed, and a Conv2D and a matmul on /GPU:0 match the CPU. A second run changes nothing.
    pip honours PIP_INDEX_URL and PIP_CERT (a mirror, a TLS-inspecting proxy's CA bundle).

    Exit codes: 0 ready; 1 the final checks failed; 2 a bad argument; 3 not 64-bit Windows 10/11;
    4 no suitable Python; 5 the Visual C++ runtime is missing; 6 no NVIDIA driver or too old;
    7 creating the venv or installing packages failed; 8 the CUDA installer or the cuDNN zip (guided);
    9 -CheckOnly found nothing installed; 10 an unexpected error; 11 the venv path is too long for
    Windows without long-path support.

.PARAMETER Venv
    Where the venv goes. Default: %LOCALAPPDATA%\tfenv\tf23.

.PARAMETER Python
    The python.exe to create the venv with. Default: `py -3.8`, else python.exe on PATH.

.PARAMETER CudaInstaller
    NVIDIA's local installer cuda_10.1.243_426.00_win10.exe. Default: downloaded to %TEMP%\tfenv.

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
    powershell -ExecutionPolicy Bypass -File .\setup.ps1

.EXAMPLE
    powershell -ExecutionPolicy Bypass -File .\setup.ps1 -CudnnZip $HOME\Downloads\cudnn-10.1-windows10-x64-v7.6.5.32.zip
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
$script:MadeVenv = $false
$InstallerUrl = 'https://developer.download.nvidia.com/compute/cuda/10.1/Prod/local_installers/cuda_10.1.243_426.00_win10.exe'
# https://github.com/conda-forge/conda-forge-ci-setup-feedstock/blob/main/recipe/install_cuda.bat
$InstallerMd5 = 'b54cf32683f93e787321dcc2e692ff69'
$CudnnZipSha256 = ''
$InstallerComponents = @('cudart_10.1', 'cublas_10.1', 'cufft_10.1', 'curand_10.1', 'cusolver_10.1', 'cusparse_10.1', 'cupti_10.1')
$ToolkitDllDirs = @('bin', 'extras\CUPTI\lib64')
$Copies = @(
)

function Write-Step {
    param([Parameter(Mandatory = $true)][string]$Message)
    Write-Information -MessageData "tfenv-windows: $Message" -InformationAction Continue
}

function Stop-Setup {
    # One line saying what is wrong and what to do, and the documented exit code.
    param([Parameter(Mandatory = $true)][int]$Code, [Parameter(Mandatory = $true)][string]$Message)
    [Console]::Error.WriteLine("tfenv-windows: error: $Message")
    exit $Code
}

function Invoke-Native {
    # Runs a program and returns its exit code and output lines. Windows PowerShell 5.1 turns a native
    # program's stderr into errors, which 'Stop' would make terminating: a local Continue keeps them as text.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Arguments = @())
    $ErrorActionPreference = 'Continue'
    $output = & $FilePath @Arguments 2>&1
    $code = $LASTEXITCODE
    [pscustomobject]@{ ExitCode = $code; Lines = @($output | ForEach-Object { "$_" }) }
}

function Invoke-Live {
    # Runs a program with its output on the console (pip's progress); returns the exit code.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Arguments = @())
    $ErrorActionPreference = 'Continue'
    & $FilePath @Arguments | Out-Host
    $LASTEXITCODE
}

function Write-Utf8File {
    # UTF-8 without a BOM on 5.1 and 7 alike (5.1's -Encoding UTF8 writes a BOM, which breaks a .pth line).
    # Returns $true when the file changed.
    param([Parameter(Mandatory = $true)][string]$Path, [Parameter(Mandatory = $true)][string]$Text)
    if ((Test-Path -LiteralPath $Path) -and ([IO.File]::ReadAllText($Path) -ceq $Text)) {
        return $false
    }
    [IO.File]::WriteAllText($Path, $Text, (New-Object -TypeName Text.UTF8Encoding -ArgumentList $false))
    return $true
}

function Get-System32 {
    # A 32-bit PowerShell on 64-bit Windows sees SysWOW64 as System32; Sysnative is the real one.
    if ([Environment]::Is64BitOperatingSystem -and -not [Environment]::Is64BitProcess) {
        return (Join-Path -Path $env:SystemRoot -ChildPath 'Sysnative')
    }
    return (Join-Path -Path $env:SystemRoot -ChildPath 'System32')
}

function Assert-Windows {
    if (-not [Environment]::Is64BitOperatingSystem) {
        Stop-Setup -Code 3 -Message 'this is 32-bit Windows; TensorFlow needs 64-bit Windows 10 or 11'
    }
    $version = [Environment]::OSVersion.Version
    if ($version.Major -lt 10) {
        Stop-Setup -Code 3 -Message "Windows $version is too old: TensorFlow's GPU build needs 64-bit Windows 10 or 11"
    }
    Write-Step "ok: 64-bit Windows $version"
}

# One line the probe prints: version, pointer bits, executable, prefix. No double quotes in the code:
# Windows PowerShell 5.1 does not escape them when it passes arguments to a program.
$PythonProbe = 'import sys, struct; print(str(sys.version_info[0]) + chr(46) + str(sys.version_info[1]) + chr(124) + str(struct.calcsize(chr(80)) * 8) + chr(124) + sys.executable + chr(124) + sys.prefix)'

function Get-PythonInfo {
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Prefix = @())
    $result = Invoke-Native -FilePath $FilePath -Arguments ($Prefix + @('-c', $PythonProbe))
    $line = @($result.Lines | Where-Object { $_ -match '^\d+\.\d+\|' }) | Select-Object -First 1
    if ($result.ExitCode -ne 0 -or -not $line) {
        return $null
    }
    $fields = $line -split '\|'
    [pscustomobject]@{ Version = $fields[0]; Bits = [int]$fields[1]; Executable = $fields[2]; Prefix = $fields[3] }
}

function Test-StorePython {
    param([Parameter(Mandatory = $true)]$Info)
    return (($Info.Executable + '|' + $Info.Prefix) -match 'WindowsApps|PythonSoftwareFoundation\.Python')
}

function Find-Python {
    $install = "install Python 3.8.10 (Windows installer (64-bit)) from https://www.python.org/downloads/release/python-3810/, then run this script again (or pass -Python C:\path\to\python.exe)"
    $candidates = @()
    if ($Python) {
        $candidates += , @($Python)
    } else {
        $launcher = Get-Command -Name 'py.exe' -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
        if ($launcher) {
            $candidates += , @($launcher.Path, "-$PythonLine")
        }
        foreach ($found in @(Get-Command -Name 'python.exe' -CommandType Application -All -ErrorAction SilentlyContinue)) {
            $candidates += , @($found.Path)
        }
    }
    $seen = @()
    $store = 'the Microsoft Store Python, refused: it runs as a packaged app whose writes under AppData (where the venv goes) are redirected into its private folder, and the locks are tested for the python.org build'
    foreach ($candidate in $candidates) {
        # A WindowsApps python.exe may be only the Store's alias: run with arguments, it just fails (9009).
        $info = Get-PythonInfo -FilePath $candidate[0] -Prefix @($candidate | Select-Object -Skip 1)
        if (-not $info) {
            $seen += "$($candidate -join ' ') (does not run)"
            continue
        }
        if (Test-StorePython -Info $info) {
            if ($Python) {
                Stop-Setup -Code 4 -Message "$($info.Executable) is $($store): $install"
            }
            $seen += "$($info.Executable) ($store)"
            continue
        }
        if ($info.Version -ne $PythonLine -or $info.Bits -ne 64) {
            $seen += "$($info.Executable) ($($info.Version), $($info.Bits)-bit)"
            continue
        }
        Write-Step "ok: Python $($info.Version) 64-bit at $($info.Executable)"
        return $info.Executable
    }
    $what = 'none found'
    if ($seen.Count -gt 0) {
        $what = 'found ' + ($seen -join '; ')
    }
    Stop-Setup -Code 4 -Message "$EnvName's Windows lock is for 64-bit Python $PythonLine ($what): $install"
}

function Assert-VcRuntime {
    $system = Get-System32
    $missing = @('msvcp140.dll', 'msvcp140_1.dll' | Where-Object { -not (Test-Path -LiteralPath (Join-Path -Path $system -ChildPath $_)) })
    if ($missing.Count -gt 0) {
        Stop-Setup -Code 5 -Message "the Visual C++ 2015-2022 x64 runtime is missing ($($missing -join ', ') not in $system): install vc_redist.x64.exe from https://aka.ms/vs/17/release/vc_redist.x64.exe, then run this script again"
    }
    Write-Step "ok: Visual C++ runtime (msvcp140.dll, msvcp140_1.dll)"
}

function Assert-NvidiaDriver {
    $candidates = @(
        (Join-Path -Path (Get-System32) -ChildPath 'nvidia-smi.exe'),
        (Join-Path -Path $env:ProgramFiles -ChildPath 'NVIDIA Corporation\NVSMI\nvidia-smi.exe')
    )
    $smi = $candidates | Where-Object { Test-Path -LiteralPath $_ } | Select-Object -First 1
    if (-not $smi) {
        Stop-Setup -Code 6 -Message "nvidia-smi.exe not found, so no NVIDIA driver is installed: install the NVIDIA Windows driver $MinimumDriver or newer for your GPU, then run this script again"
    }
    $result = Invoke-Native -FilePath $smi -Arguments @('--query-gpu=driver_version,name', '--format=csv,noheader')
    $line = $result.Lines | Where-Object { $_ -match '^\s*\d+\.\d+' } | Select-Object -First 1
    if ($result.ExitCode -ne 0 -or -not $line) {
        Stop-Setup -Code 6 -Message "nvidia-smi found no GPU ($($result.Lines -join ' ')): check the GPU in Device Manager and reinstall the NVIDIA driver ($MinimumDriver or newer)"
    }
    $fields = @($line -split ',', 2)
    $driver = [version]($fields[0].Trim())
    $gpu = 'GPU'
    if ($fields.Count -gt 1) {
        $gpu = $fields[1].Trim()
    }
    if ($driver -lt $MinimumDriver) {
        Stop-Setup -Code 6 -Message "the NVIDIA driver is $driver; TensorFlow $TensorFlow's CUDA 10.1 build needs $MinimumDriver or newer: update the driver, then run this script again"
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
    Stop-Setup -Code 11 -Message "TensorFlow's files under $site need paths of $needed characters, over Windows' 260 without long-path support: pass a shorter -Venv (such as C:\tfenv\$EnvName), or enable long paths in an administrator PowerShell (New-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\FileSystem' -Name LongPathsEnabled -Value 1 -PropertyType DWORD -Force) and run this script again"
}

function Get-VenvPython {
    return (Join-Path -Path $Venv -ChildPath 'Scripts\python.exe')
}

function New-Venv {
    param([Parameter(Mandatory = $true)][string]$BasePython)
    $venvPython = Get-VenvPython
    if (Test-Path -LiteralPath $venvPython) {
        $info = Get-PythonInfo -FilePath $venvPython
        if (-not $info -or $info.Version -ne $PythonLine) {
            Stop-Setup -Code 7 -Message "$Venv holds a venv that is not Python $PythonLine (or is broken): remove that folder or pass -Venv with another folder, then run this script again"
        }
        Write-Step "ok: venv $Venv (Python $($info.Version))"
        return
    }
    if ($DryRun) {
        Write-Step "would create the venv: $BasePython -m venv $Venv"
        return
    }
    Write-Step "creating the venv $Venv"
    $result = Invoke-Native -FilePath $BasePython -Arguments @('-m', 'venv', $Venv)
    if ($result.ExitCode -ne 0) {
        Stop-Setup -Code 7 -Message "'$BasePython -m venv $Venv' failed ($($result.Lines -join ' ')): check that the folder is writable, or pass -Venv with another folder"
    }
    $script:MadeVenv = $true
}

function Get-TfenvDir {
    return (Join-Path -Path $Venv -ChildPath 'tfenv')
}

function Invoke-Pip {
    # pip install --no-deps --require-hashes -r FILE, its output on the console and kept for Get-HashMismatch.
    param([Parameter(Mandatory = $true)][string]$Python, [Parameter(Mandatory = $true)][string]$RequirementsFile)
    $ErrorActionPreference = 'Continue'
    $lines = New-Object -TypeName System.Collections.Generic.List[string]
    & $Python -m pip install --disable-pip-version-check --no-deps --require-hashes -r $RequirementsFile 2>&1 | ForEach-Object {
        $line = "$_"
        $lines.Add($line)
        $line | Out-Host
    }
    [pscustomobject]@{ ExitCode = $LASTEXITCODE; Lines = $lines.ToArray() }
}

function Get-HashMismatch {
    # One line for pip's refusal of a file whose sha256 is not the lock's, or '' when pip failed otherwise.
    param([string[]]$Lines = @())
    $seen = $false
    foreach ($line in $Lines) {
        if ($line -match 'DO NOT MATCH THE HASHES') {
            $seen = $true
        } elseif ($seen -and $line -match '^\s+([A-Za-z0-9._-]+)==(\S+)(?: from ([a-z+]+://(?:[^@/\s]*@)?([^/\s]+)))?') {
            $from = if ($Matches[4]) { $Matches[4] } else { 'the index' }
            return "$($Matches[1]) $($Matches[2]) from $from is not the file the lock names (its sha256 differs): a mirror or proxy changed it, and nothing was installed. Use another index (PIP_INDEX_URL) and tell whoever runs this one"
        }
    }
    return ''
}

function Test-FileChecksum {
    # Before anything runs from a download: its checksum against the known one, or, where none is known,
    # its SHA-256 printed for the user to compare, and a yes to go on.
    param([Parameter(Mandatory = $true)][string]$Path, [string]$Algorithm = 'SHA256', [string]$Expected = '', [Parameter(Mandatory = $true)][string]$What)
    $actual = (Get-FileHash -LiteralPath $Path -Algorithm $Algorithm).Hash.ToLowerInvariant()
    if ($Expected) {
        if ($actual -ne $Expected.ToLowerInvariant()) {
            Stop-Setup -Code 8 -Message "$Path is not $What ($Algorithm $actual, expected $Expected): delete it, download it again from NVIDIA, then run this script again; nothing was run"
        }
        Write-Step "ok: $Path has the $Algorithm of $What"
        return
    }
    $sha = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
    Write-Step "no published checksum is known for $What; the SHA-256 of $Path is $sha"
    if ($DryRun) {
        return
    }
    $answer = Read-Host -Prompt "compare it with a copy you trust; type yes to use this file"
    if ($answer -ne 'yes') {
        Stop-Setup -Code 8 -Message "$Path was not confirmed: nothing was run"
    }
}

function Install-Packages {
    $venvPython = Get-VenvPython
    if ($DryRun) {
        Write-Step "would install with pip --no-deps --require-hashes (index: PIP_INDEX_URL or pip's configuration):"
        $Requirements | ForEach-Object { Write-Step "    $_" }
        return
    }
    $requirementsFile = Join-Path -Path (Get-TfenvDir) -ChildPath 'requirements.txt'
    $null = Write-Utf8File -Path $requirementsFile -Text (($Requirements -join "`n") + "`n")
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
    Write-Step "installing $($missing.Count) of $($Requirements.Count) pinned packages (pip honours PIP_INDEX_URL and PIP_CERT)"
    $pipFile = Join-Path -Path (Get-TfenvDir) -ChildPath 'pip-requirement.txt'
    $null = Write-Utf8File -Path $pipFile -Text ($PipPin + "`n")
    $run = Invoke-Pip -Python $venvPython -RequirementsFile $pipFile
    if ($run.ExitCode -eq 0) {
        $run = Invoke-Pip -Python $venvPython -RequirementsFile $requirementsFile
    }
    if ($run.ExitCode -ne 0) {
        $mismatch = Get-HashMismatch -Lines $run.Lines
        if ($script:MadeVenv) {
            Remove-Item -LiteralPath $Venv -Recurse -Force -ErrorAction SilentlyContinue
        }
        if ($mismatch) {
            Stop-Setup -Code 7 -Message $mismatch
        }
        Stop-Setup -Code 7 -Message "pip failed (exit $($run.ExitCode); its message is above): behind a proxy or with a mirror, set PIP_INDEX_URL (and PIP_CERT for a private CA bundle), then run this script again"
    }
    $check = Invoke-Native -FilePath $venvPython -Arguments @('-m', 'pip', 'check', '--disable-pip-version-check')
    if ($check.ExitCode -ne 0) {
        Stop-Setup -Code 7 -Message "pip check found conflicts ($($check.Lines -join '; ')): remove $Venv and run this script again"
    }
}

function Test-Administrator {
    $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
    return (New-Object -TypeName Security.Principal.WindowsPrincipal -ArgumentList $identity).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
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
        Stop-Setup -Code 8 -Message "download cudnn-10.1-windows10-x64-v7.6.5.32.zip (cuDNN 7.6.5 for CUDA 10.1; NVIDIA requires a free login) from https://developer.nvidia.com/rdp/cudnn-archive, then run this script again with -CudnnZip PATH"
    }
    if (-not (Test-Path -LiteralPath $CudnnZip -PathType Leaf)) {
        Stop-Setup -Code 2 -Message "-CudnnZip $CudnnZip is not a file: pass the path of cudnn-10.1-windows10-x64-v7.6.5.32.zip"
    }
    # Checked first: a wrong zip stops the script before NVIDIA's installer runs as administrator.
    $expectedZip = if ($CudnnSha256) { $CudnnSha256 } else { $CudnnZipSha256 }
    Test-FileChecksum -Path $CudnnZip -Expected $expectedZip -What 'cudnn-10.1-windows10-x64-v7.6.5.32.zip'
    $toolkit = Join-Path -Path $env:ProgramFiles -ChildPath 'NVIDIA GPU Computing Toolkit\CUDA\v10.1'
    $cudart = Join-Path -Path $toolkit -ChildPath 'bin\cudart64_101.dll'
    if ($DryRun) {
        if (-not (Test-Path -LiteralPath $cudart)) {
            Write-Step "would run NVIDIA's installer silently: cuda_10.1.243_426.00_win10.exe -s $($InstallerComponents -join ' ') -n (administrator)"
        }
        Write-Step "would copy the DLLs of $toolkit ($($ToolkitDllDirs -join ', ')) and of $CudnnZip into $dllDir"
        return
    }
    if (-not (Test-Path -LiteralPath $cudart)) {
        if (-not (Test-Administrator)) {
            Stop-Setup -Code 8 -Message "NVIDIA's CUDA 10.1.243 installer needs administrator rights: run this script again from an administrator PowerShell (right-click, Run as administrator)"
        }
        $installer = $CudaInstaller
        if (-not $installer) {
            $downloads = Join-Path -Path $env:TEMP -ChildPath 'tfenv'
            $null = New-Item -ItemType Directory -Force -Path $downloads
            $installer = Join-Path -Path $downloads -ChildPath 'cuda_10.1.243_426.00_win10.exe'
            if (-not (Test-Path -LiteralPath $installer)) {
                Write-Step "downloading $InstallerUrl (about 2.5 GB)"
                try {
                    Invoke-WebRequest -UseBasicParsing -Uri $InstallerUrl -OutFile "$installer.part"
                    Move-Item -LiteralPath "$installer.part" -Destination $installer -Force
                } catch {
                    Stop-Setup -Code 8 -Message "downloading $InstallerUrl failed ($($_.Exception.Message)): download it yourself and pass -CudaInstaller PATH"
                }
            }
        }
        if (-not (Test-Path -LiteralPath $installer -PathType Leaf)) {
            Stop-Setup -Code 2 -Message "-CudaInstaller $installer is not a file: pass the path of cuda_10.1.243_426.00_win10.exe"
        }
        Test-FileChecksum -Path $installer -Algorithm 'MD5' -Expected $InstallerMd5 -What "NVIDIA's cuda_10.1.243_426.00_win10.exe"
        Write-Step "running NVIDIA's installer silently with the runtime components only (no driver, no Visual Studio integration)"
        $process = Start-Process -FilePath $installer -ArgumentList (@('-s') + $InstallerComponents + @('-n')) -Wait -PassThru
        if ($process.ExitCode -ne 0 -or -not (Test-Path -LiteralPath $cudart)) {
            Stop-Setup -Code 8 -Message "NVIDIA's installer exited with $($process.ExitCode) and $cudart is missing: run $installer yourself, choose Custom, select only the CUDA runtime libraries (no driver, no Visual Studio integration), then run this script again"
        }
    }
    $null = New-Item -ItemType Directory -Force -Path $dllDir
    foreach ($sub in $ToolkitDllDirs) {
        $from = Join-Path -Path $toolkit -ChildPath $sub
        if (Test-Path -LiteralPath $from) {
            Get-ChildItem -LiteralPath $from -Filter '*.dll' | Copy-Item -Destination $dllDir -Force
        }
    }
    $unpacked = Join-Path -Path (Get-TfenvDir) -ChildPath 'cudnn-unpacked'
    Expand-Archive -LiteralPath $CudnnZip -DestinationPath $unpacked -Force
    $cudnnDlls = @(Get-ChildItem -LiteralPath $unpacked -Recurse -Filter 'cudnn*.dll')
    if ($cudnnDlls.Count -eq 0) {
        Stop-Setup -Code 8 -Message "$CudnnZip has no cudnn*.dll: download cudnn-10.1-windows10-x64-v7.6.5.32.zip (the Windows zip, not the Linux archive)"
    }
    $cudnnDlls | Copy-Item -Destination $dllDir -Force
    Remove-Item -LiteralPath $unpacked -Recurse -Force
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
            Stop-Setup -Code 8 -Message "$from is missing, so $($copy.To) cannot be provided: run this script again without -CheckOnly"
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
# tfenv's checks for tf23 on Windows, the image suite's: DLLs, versions, GPU, ops on /GPU:0.
import ctypes
import os
import sys

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')
WANT = ['cudart64_101.dll', 'cublas64_10.dll', 'cufft64_10.dll', 'curand64_10.dll', 'cusolver64_10.dll', 'cusparse64_10.dll', 'cudnn64_7.dll']
OPTIONAL = ['cupti64_101.dll']
VC_RUNTIME = ['msvcp140.dll', 'msvcp140_1.dll']
failed = []


def report(ok, what, fix=''):
    print(('ok: ' if ok else 'FAIL: ') + what + ('' if ok or not fix else ' -> ' + fix), flush=True)
    if not ok:
        failed.append(what)


def where(handle):
    buf = ctypes.create_unicode_buffer(1024)
    ctypes.windll.kernel32.GetModuleFileNameW(ctypes.c_void_p(handle), buf, 1024)
    return buf.value


# winmode=0: the standard search TF's LoadLibrary uses (PATH included); ctypes' default skips PATH.
for name in VC_RUNTIME + WANT + OPTIONAL:
    try:
        lib = ctypes.WinDLL(name, winmode=0)
        report(True, name + ' loads from ' + where(lib._handle))
    except OSError as exc:
        if name in OPTIONAL:
            print('warning: ' + name + ' does not load (only the profiler needs it): ' + str(exc))
        else:
            report(False, name + ' does not load: ' + str(exc), 'run setup.ps1 again without -CheckOnly')

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
    $program = Join-Path -Path (Get-TfenvDir) -ChildPath 'check.py'
    $null = Write-Utf8File -Path $program -Text $CheckProgram
    Write-Step 'checks: DLLs, TensorFlow, GPU'
    return (Invoke-Live -FilePath $venvPython -Arguments @($program))
}

function Invoke-Setup {
    if ($CheckOnly -and $DryRun) {
        Stop-Setup -Code 2 -Message '-CheckOnly and -DryRun exclude each other: pass one'
    }
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
    Assert-Windows
    if ($CheckOnly) {
        Assert-VcRuntime
        Assert-NvidiaDriver
        if (-not (Test-Path -LiteralPath (Get-VenvPython))) {
            Stop-Setup -Code 9 -Message "no venv at $Venv yet: run this script without -CheckOnly to install $EnvName"
        }
    } else {
        $basePython = Find-Python
        Assert-VcRuntime
        Assert-NvidiaDriver
        Assert-PathLength
        New-Venv -BasePython $basePython
        if (-not $DryRun) {
            $null = New-Item -ItemType Directory -Force -Path (Get-TfenvDir)
        }
        Install-Packages
        Install-CudaRuntime
        Install-Hook
        Copy-Dlls
    }
    $code = Invoke-Checks
    if ($code -ne 0) {
        Stop-Setup -Code 1 -Message "the checks failed (lines marked FAIL above say what to do)"
    }
    if (-not $DryRun) {
        Write-Step "ready: $(Get-VenvPython) (activate: $Venv\Scripts\Activate.ps1; Jupyter kernels and IDEs can use that python.exe directly)"
    }
}

try {
    Invoke-Setup
} catch {
    Stop-Setup -Code 10 -Message "unexpected error: $($_.Exception.Message) (at line $($_.InvocationInfo.ScriptLineNumber)): please report it with this line"
}
exit 0
