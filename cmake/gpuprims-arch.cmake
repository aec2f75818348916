# cmake/gpuprims-arch.cmake -- the CUDA architectures gpuprims builds for when the project
# chose none, as the Makefile does: those of the GPUs that nvidia-smi finds (90 on an H100),
# else 90, the architecture gpuprims is tuned and measured on.
#
# gpuprims_arch_chosen(<var>): <var> is TRUE when CMAKE_CUDA_ARCHITECTURES was set by the
#   project, the command line or $CUDAARCHS, FALSE when it is only CMake's default (the
#   compiler's own, sm_75 for nvcc 12 and 13) or unset.
# gpuprims_arch_default(<var>): the list above, in CMake's spelling ("90", "80;90").
function(gpuprims_arch_chosen out)
  set(chosen FALSE)
  if(DEFINED ENV{CUDAARCHS})
    set(chosen TRUE)
  elseif(DEFINED CMAKE_CUDA_ARCHITECTURES)
    get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
    # CMake caches its default with this help string; a value given on the command line or
    # set by the project is either not cached or cached with another.
    if(NOT DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES}
       OR NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}"
       OR NOT help STREQUAL "CUDA architectures")
      set(chosen TRUE)
    endif()
  endif()
  set(${out} ${chosen} PARENT_SCOPE)
endfunction()

function(gpuprims_arch_default out)
  set(archs "")
  find_program(GPUPRIMS_NVIDIA_SMI nvidia-smi)
  if(GPUPRIMS_NVIDIA_SMI)
    execute_process(COMMAND "${GPUPRIMS_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND archs "${arch}")
      endforeach()
      list(REMOVE_DUPLICATES archs)
      list(SORT archs COMPARE NATURAL)
    endif()
  endif()
  if(NOT archs)
    set(archs 90)
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()
