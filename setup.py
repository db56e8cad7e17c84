"""Build the native core: cythonize src/dsolve/_core.pyx with optimisation on. Its compiler
directives are set once, in the ``# cython:`` line at the top of _core.pyx."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(
        "dsolve._core",
        ["src/dsolve/_core.pyx"],
        extra_compile_args=["-O3"],
    )
]

setup(ext_modules=cythonize(extensions))
