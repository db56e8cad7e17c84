"""Build the native core: cythonize src/dsolve/_core.pyx with optimisation on."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "dsolve._core",
        ["src/dsolve/_core.pyx"],
        extra_compile_args=["-O3"],
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
