<#
.SYNOPSIS
    Installs tfenv's tf210 environment natively on Windows: TensorFlow 2.10.1 with the GPU, in a venv.

.DESCRIPTION
    Rendered from matrix.yaml by `tfenv windows tf210`: edit builder/templates/windows/, not this file.
    Runs under Windows PowerShell 5.1 and PowerShell 7 on 64-bit Windows 10 or 11. Checks, in order:
    64-bit Windows 10/11; a python.org Python 3.10 (64-bit; the Microsoft Store's and conda's are refused);
    the Visual C++ 2015-2022 x64 runtime; the NVIDIA driver 461.33 or newer (nvidia-smi).
    Then it creates the venv, installs the pinned packages and NVIDIA's CUDA wheels (pip only, no CUDA
    installer), writes a .pth hook that puts the wheels' DLL folders on PATH whenever the venv's
    python.exe starts (Jupyter kernels and IDEs too, which skip activate scripts).
    It copies cupti64_2022.3.0.dll as cupti64_112.dll, the name TensorFlow asks for.
    Last it runs the checks: every DLL TensorFlow loads and each part of cuDNN opens from inside the venv, the
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
    Where the venv goes. Default: %LOCALAPPDATA%\tfenv\tf210.

.PARAMETER Python
    The python.exe to create the venv with. Default: `py -3.10`, else python.exe on PATH.

.PARAMETER CheckOnly
    Check the machine and an existing venv; change nothing.

.PARAMETER DryRun
    Check the machine and print what would be done; change nothing.

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\setup.ps1
#>
[CmdletBinding()]
param(
    [string]$Venv = '',
    [string]$Python = '',
    [switch]$CheckOnly,
    [switch]$DryRun
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'  # Invoke-WebRequest's progress bar slows 5.1 downloads badly

$EnvName = 'tf210'
$TensorFlow = '2.10.1'
$PythonLine = '3.10'
$MinimumDriver = [version]'461.33'
$HookName = 'tfenv-cuda-path.pth'
$HookLine = @'
import os, sys; (lambda os, ds: [os.environ.__setitem__('PATH', os.pathsep.join([d for d in ds if d not in os.environ.get('PATH', '').split(os.pathsep)] + [os.environ.get('PATH', '')]))] + [os.add_dll_directory(d) for d in ds if hasattr(os, 'add_dll_directory') and os.path.isdir(d)])(os, [os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cuda_runtime', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cublas', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cufft', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'curand', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cusolver', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cusparse', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cuda_nvrtc', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cudnn', 'bin'), os.path.join(sys.prefix, 'Lib', 'site-packages', 'nvidia', 'cuda_cupti', 'bin')])
'@
$HookDirs = @('Lib\site-packages\nvidia\cuda_runtime\bin', 'Lib\site-packages\nvidia\cublas\bin', 'Lib\site-packages\nvidia\cufft\bin', 'Lib\site-packages\nvidia\curand\bin', 'Lib\site-packages\nvidia\cusolver\bin', 'Lib\site-packages\nvidia\cusparse\bin', 'Lib\site-packages\nvidia\cuda_nvrtc\bin', 'Lib\site-packages\nvidia\cudnn\bin', 'Lib\site-packages\nvidia\cuda_cupti\bin')
# Each pin with the sha256 of every file it may be: pip installs them with --require-hashes.
$Requirements = @(
    'absl-py==1.3.0 --hash=sha256:34995df9bd7a09b3b8749e230408f5a2a2dd7a68a0d33c12a3d0cb15a041a507'
    'astunparse==1.6.3 --hash=sha256:c2652417f2c8b5bb325c885ae329bdf3f86424075c4fd1a128674bc6fba4b8e8'
    'cachetools==5.2.0 --hash=sha256:f9f17d2aec496a9aa6b76f53e3b614c965223c061982d434d160f930c698a9db'
    'certifi==2022.12.7 --hash=sha256:4ad3232f5e926d6718ec31cfc1fcadfde020920e278684144551c91769c7bc18'
    'charset-normalizer==2.1.1 --hash=sha256:83e9a75d1911279afd89352c68b45348559d1fc0506b054b346651b5e7fee29f'
    'flatbuffers==22.12.6 --hash=sha256:b12a3214e73f325ecd392503e821ac43a791181356f020cc3657ba829b4947c8'
    'gast==0.4.0 --hash=sha256:b7adcdd5adbebf1adf17378da5ba3f543684dbec47b1cda1f3997e573cd542c4'
    'google-auth==2.15.0 --hash=sha256:6897b93556d8d807ad70701bb89f000183aea366ca7ed94680828b37437a4994'
    'google-auth-oauthlib==0.4.6 --hash=sha256:3f2a6e802eebbb6fb736a370fbf3b055edcb6b52878bf2f26330b5e041316c73'
    'google-pasta==0.2.0 --hash=sha256:b32482794a366b5366a32c92a9a9201b107821889935a02b3e51f6b432ea84ed'
    'grpcio==1.51.1 --hash=sha256:9ff42c5620b4e4530609e11afefa4a62ca91fa0abb045a8957e509ef84e54d30'
    'h5py==3.7.0 --hash=sha256:f514b24cacdd983e61f8d371edac8c1b780c279d0acb8485639e97339c866073'
    'idna==3.4 --hash=sha256:90b77e79eaa3eba6de819a0c442c0b4ceefc341a7a2ab77d7562bf49f425c5c2'
    'keras==2.10.0 --hash=sha256:26a6e2c2522e7468ddea22710a99b3290493768fc08a39e75d1173a0e3452fdf'
    'keras-preprocessing==1.1.2 --hash=sha256:7b82029b130ff61cc99b55f3bd27427df4838576838c5b2f65940e4fcec99a7b'
    'libclang==14.0.6 --hash=sha256:ea03c12675151837660cdd5dce65bd89320896ac3421efef43a36678f113ce95'
    'markdown==3.4.1 --hash=sha256:08fb8465cffd03d10b9dd34a5c3fea908e20391a2a90b88d66362cb05beed186'
    'markupsafe==2.1.1 --hash=sha256:dda30ba7e87fbbb7eab1ec9f58678558fd9a6b8b853530e176eabd064da81417'
    'numpy==1.23.5 --hash=sha256:dbee87b469018961d1ad79b1a5d50c0ae850000b639bcb1b694e9981083243b6'
    'oauthlib==3.2.2 --hash=sha256:8139f29aac13e25d502680e9e19963e83f16838d48a0d71c287fe40e7067fbca'
    'opt-einsum==3.3.0 --hash=sha256:2455e59e3947d3c275477df7f5205b30635e266fe6dc300e3d9f9646bfcea147'
    'packaging==22.0 --hash=sha256:957e2148ba0e1a3b282772e791ef1d8083648bc131c8ab0c1feba110ce1146c3'
    'protobuf==3.19.6 --hash=sha256:14082457dc02be946f60b15aad35e9f5c69e738f80ebbc0900a19bc83734a5a4 --hash=sha256:347b393d4dd06fb93a77620781e11c058b3b0a5289262f094379ada2920a3730'
    'pyasn1==0.4.8 --hash=sha256:39c7e2ec30515947ff4e87fb6f456dfc6e84857d34be479c9d4a4ba4bf46aa5d'
    'pyasn1-modules==0.2.8 --hash=sha256:a50b808ffeb97cb3601dd25981f6b016cbb3d31fbf57a8b8a87428e6158d0c74'
    'requests==2.28.1 --hash=sha256:8fefa2a1a1365bf5520aac41836fbee479da67864514bdb821f31ce07ce65349'
    'requests-oauthlib==1.3.1 --hash=sha256:2577c501a2fb8d05a304c09d090d6e47c306fef15809d102b327cf8364bddab5'
    'rsa==4.9 --hash=sha256:90260d9058e514786967344d0ef75fa8727eed8a7d2e43ce9f4bcf1b536174f7'
    'setuptools==65.6.3 --hash=sha256:57f6f22bde4e042978bcd50176fdb381d7c21a9efa4041202288d3737a0c6a54'
    'six==1.16.0 --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254'
    'tensorboard==2.10.1 --hash=sha256:fb9222c1750e2fa35ef170d998a1e229f626eeced3004494a8849c88c15d8c1c'
    'tensorboard-data-server==0.6.1 --hash=sha256:809fe9887682d35c1f7d1f54f0f40f98bb1f771b14265b453ca051e2ce58fca7'
    'tensorboard-plugin-wit==1.8.1 --hash=sha256:ff26bdd583d155aa951ee3b152b3d0cffae8005dc697f72b44a8e8c2a77a8cbe'
    'tensorflow==2.10.1 --hash=sha256:a6049664f9a0d14b0a4a7e6f058be87b2d8c27be826d7dd9a870ff03683fbc0b'
    'tensorflow-estimator==2.10.0 --hash=sha256:f324ea17cd57f16e33bf188711d5077e6b2e5f5a12c328d6e01a07b23888edcd'
    'tensorflow-io-gcs-filesystem==0.29.0 --hash=sha256:7ff4b18f1a74e1a56603fa204cf82b1af5b24ad18c579692c487b4fb4a2baec8'
    'termcolor==2.1.1 --hash=sha256:fa852e957f97252205e105dd55bbc23b419a70fec0085708fc0515e399f304fd'
    'typing-extensions==4.4.0 --hash=sha256:16fa4864408f655d35ec496218b85f79b3437c829e93320c7c9215ccfd92489e'
    'urllib3==1.26.13 --hash=sha256:47cc05d99aaa09c9e72ed5809b60e7ba354e64b59c9c173ac3018642d8bb41fc'
    'werkzeug==2.2.2 --hash=sha256:f979ab81f58d7318e064e99c4506445d60135ac5cd2e177a2de0089bfd4c9bd5'
    'wheel==0.38.4 --hash=sha256:b60533f3f5d530e971d6737ca6d58681ee434818fab630c83a734bb10c083ce8'
    'wrapt==1.14.1 --hash=sha256:6d323e1554b3d22cfc03cd3243b5bb815a51f5249fdcbb86fda4bf62bab9e164'
    'nvidia-cuda-runtime-cu11==11.8.89 --hash=sha256:f60c9fdaed8065b38de8097867240efc5556a8a710007146daeb9082334a6e63'
    'nvidia-cublas-cu11==11.11.3.6 --hash=sha256:6ab12b1302bef8ac1ff4414edd1c059e57f4833abef9151683fb8f4de25900be'
    'nvidia-cufft-cu11==10.9.0.58 --hash=sha256:c4d316f17c745ec9c728e30409612eaf77a8404c3733cdf6c9c1569634d1ca03'
    'nvidia-curand-cu11==10.3.0.86 --hash=sha256:8fa8365065fc3e3760d7437b08f164a6bcf8f7124f3b544d2463ded01e6bdc70'
    'nvidia-cusolver-cu11==11.4.1.48 --hash=sha256:7efe43b113495a64e2cf9a0b4365bd53b0a82afb2e2cf91e9f993c9ef5e69ee8'
    'nvidia-cusparse-cu11==11.7.5.86 --hash=sha256:a0f6ee81cd91be606fc2f55992d06b09cd4e86d74b6ae5e8dd1631cf7f5a8706'
    'nvidia-cuda-nvrtc-cu11==11.8.89 --hash=sha256:e18a23a8f4064664a6f1c4a64f38c581cbebfb5935280e94a4943ea8ae3791b1'
    'nvidia-cudnn-cu11==8.9.4.25 --hash=sha256:c39cf14efb0ae7b4bf7396fba19a13d1c7f035e913fec254b163c3edcfb65fc5'
    'nvidia-cuda-cupti-cu11==11.8.87 --hash=sha256:4332d8550ad5f5b673f98d08e4e4f82030cb604c66d8d5ee919399ea01312e58'
)
$PipPin = 'pip==23.0.1 --hash=sha256:236bcb61156d76c4b8a05821b988c7b8c35bf0da28a4b614e8d6ab5212c25c6f'

$VenvSpaceGb = 6  # the installed packages and pip's cache of their downloads
$Copies = @(
    [pscustomobject]@{ Source = 'cupti64_2022.3.0.dll'; To = 'cupti64_112.dll'; Dir = 'Lib\site-packages\nvidia\cuda_cupti\bin'; Optional = $true }
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
    $install = "install Python 3.10.11 (Windows installer (64-bit)) from https://www.python.org/downloads/release/python-31011/, then run this script again from a plain PowerShell (powershell -NoProfile, no conda activate), or pass -Python C:\path\to\python.exe"
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
        Stop-Setup -Code $Exit.NoDriver -Message "the NVIDIA driver is $driver; TensorFlow $TensorFlow's CUDA 11.2 build needs $MinimumDriver or newer (the CUDA 11 libraries alone would run on 452.39+, but TF's kernels for newer GPUs are compiled from PTX by a CUDA 11.2 driver): update the driver, then run this script again"
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
# tfenv's checks for tf210 on Windows, the image suite's: DLLs from the venv, versions, GPU, ops on /GPU:0.
import ctypes
import os
import sys

for stream in (sys.stdout, sys.stderr):
    if hasattr(stream, 'reconfigure'):  # a path the console cannot spell is escaped, never a crash
        stream.reconfigure(errors='backslashreplace')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '1')
WANT = ['cudart64_110.dll', 'cublas64_11.dll', 'cublasLt64_11.dll', 'cufft64_10.dll', 'curand64_10.dll', 'cusolver64_11.dll', 'cusparse64_11.dll', 'cudnn64_8.dll']
CUDNN_PARTS = ['cudnn_ops_infer64_8.dll', 'cudnn_ops_train64_8.dll', 'cudnn_cnn_infer64_8.dll', 'cudnn_cnn_train64_8.dll', 'cudnn_adv_infer64_8.dll', 'cudnn_adv_train64_8.dll']
OPTIONAL = ['cupti64_112.dll']
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

report(tf.__version__ == '2.10.1', 'TensorFlow ' + tf.__version__ + ' (want 2.10.1)',
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
report(bool(info.get('is_cuda_build')) and cuda == '112' and cudnn.startswith('8'),
       'build info: CUDA ' + str(info.get('cuda_version')) + ', cuDNN ' + str(info.get('cudnn_version'))
       + ' (want CUDA 11.2, cuDNN 8)', 'this is not the GPU build of TensorFlow 2.10.1: remove the venv and run setup.ps1 again')

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
