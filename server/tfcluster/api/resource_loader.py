"""tf.resource_loader"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.platform.resource_loader import (
    get_data_files_path,
    get_path_to_datafile,
    get_root_dir_with_all_resources,
    load_resource,
    readahead_file_path,
)

__getattr__ = _unimplemented.module_getattr("resource_loader")
