# SPDX-License-Identifier: MIT
# Which device code nvcc emits: sets ZKMILL_CUDA_FLAGS (the -gencode options) and
# ZKMILL_CUDA_DEVICE_CODE (a one-line description for `zkmill info`).
#
# ZKMILL_CUDA_ARCHS (cache variable, or the environment variable of that name at configure time,
# e.g. for scripts/setup.sh) is AUTO or a list in CMAKE_CUDA_ARCHITECTURES' spelling:
#   90          sm_90 SASS plus compute_90 PTX (H100/H200 run the SASS, newer GPUs JIT the PTX)
#   90-real     sm_90 SASS only
#   90-virtual  compute_90 PTX only: the driver compiles it for the GPU at first use
# AUTO (the default) takes the environment variable when it is set, else 90 where nvidia-smi
# lists a GPU and 90-virtual where it does not.
#
# Why AUTO drops the SASS on a machine without a GPU: ptxas, which turns PTX into SASS, is
# about a third of the CUDA backend's compile time (README.md, "Build time"), and a build
# machine without a GPU (CI, a laptop) never runs the kernels itself. A binary built that way
# still runs on a GPU: the driver compiles the PTX there on first use (minutes for the whole
# backend, once; the result stays in the driver's compute cache, ~/.nv/ComputeCache, for the
# next runs). Binaries meant for GPU machines are best built with SASS: -DZKMILL_CUDA_ARCHS=90.
set(ZKMILL_CUDA_ARCHS AUTO CACHE STRING
    "CUDA device code: AUTO (90 with a GPU, 90-virtual without), or e.g. 90, 90-real, 90-virtual, \"90;100\"")
set(_archs "${ZKMILL_CUDA_ARCHS}")
set(_archs_from "-DZKMILL_CUDA_ARCHS")
if(_archs MATCHES "^([Aa][Uu][Tt][Oo])?$" AND DEFINED ENV{ZKMILL_CUDA_ARCHS} AND NOT "$ENV{ZKMILL_CUDA_ARCHS}" STREQUAL "")
  set(_archs "$ENV{ZKMILL_CUDA_ARCHS}")
  set(_archs_from "the environment's ZKMILL_CUDA_ARCHS")
endif()
string(REPLACE "," ";" _archs "${_archs}")
string(REPLACE " " ";" _archs "${_archs}")
string(TOUPPER "${_archs}" _archs_upper)
if(_archs STREQUAL "" OR _archs_upper STREQUAL "AUTO")
  # A GPU is present when nvidia-smi runs and lists one ("GPU 0: NVIDIA H200 (UUID: ...)").
  find_program(ZKMILL_NVIDIA_SMI nvidia-smi NO_CACHE)
  set(_gpu_lines "")
  if(ZKMILL_NVIDIA_SMI)
    execute_process(COMMAND ${ZKMILL_NVIDIA_SMI} -L RESULT_VARIABLE _smi_rc OUTPUT_VARIABLE _smi_out ERROR_QUIET
                    TIMEOUT 30)
    if(_smi_rc EQUAL 0)
      string(REGEX MATCHALL "GPU [0-9]+:" _gpu_lines "${_smi_out}")
    endif()
  endif()
  if(_gpu_lines)
    set(_archs 90)
    message(STATUS "zkmill: GPU found (nvidia-smi -L): device code built as sm_90 SASS + compute_90 PTX")
  else()
    set(_archs 90-virtual)
    message(
      STATUS
        "zkmill: no GPU found (nvidia-smi absent or lists none): device code built as compute_90 PTX only, "
        "which the driver compiles on first use on a GPU machine (minutes, once; kept in its compute cache). "
        "To build SASS here anyway: -DZKMILL_CUDA_ARCHS=90 (or ZKMILL_CUDA_ARCHS=90 in the environment)")
  endif()
else()
  message(STATUS "zkmill: device code from ${_archs_from}: ${_archs}")
endif()

# One -gencode token per architecture: CMake de-duplicates repeated options, which would drop a
# second "-gencode" given as a separate word.
set(ZKMILL_CUDA_FLAGS "")
set(ZKMILL_CUDA_DEVICE_CODE "")
foreach(_a IN LISTS _archs)
  if(NOT _a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
    message(FATAL_ERROR "zkmill: ZKMILL_CUDA_ARCHS: '${_a}' is not an architecture "
                        "(AUTO, or e.g. 90, 90-real, 90-virtual; a list as \"90;100\")")
  endif()
  set(_n ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 STREQUAL "-real")
    list(APPEND ZKMILL_CUDA_FLAGS "--generate-code=arch=compute_${_n},code=[sm_${_n}]")
    list(APPEND ZKMILL_CUDA_DEVICE_CODE "sm_${_n} SASS")
  elseif(CMAKE_MATCH_2 STREQUAL "-virtual")
    list(APPEND ZKMILL_CUDA_FLAGS "--generate-code=arch=compute_${_n},code=[compute_${_n}]")
    list(APPEND ZKMILL_CUDA_DEVICE_CODE "compute_${_n} PTX")
  else()
    list(APPEND ZKMILL_CUDA_FLAGS "--generate-code=arch=compute_${_n},code=[sm_${_n},compute_${_n}]")
    list(APPEND ZKMILL_CUDA_DEVICE_CODE "sm_${_n} SASS + compute_${_n} PTX")
  endif()
endforeach()
if(NOT ZKMILL_CUDA_FLAGS)
  message(FATAL_ERROR "zkmill: ZKMILL_CUDA_ARCHS names no architecture")
endif()
list(JOIN ZKMILL_CUDA_DEVICE_CODE ", " ZKMILL_CUDA_DEVICE_CODE)
# nvcc would otherwise add its default architecture on top of ours.
set(CMAKE_CUDA_ARCHITECTURES OFF)
